/* The native fast path's hand state and rules: a compact copy of what dominolab.core does
 * (RULES.md sections 2-4), for the loops that run millions of times: dealing, legal moves,
 * applying a move, playouts and the search. The Python core stays the readable reference;
 * tests/test_native_engine.py checks this against it move by move.
 *
 * Nothing here knows a game's name: a state is built from the facts of its GameSpec and its
 * options, as flags (R_*).
 */
#ifndef DOMINOLAB_ENGINE_H
#define DOMINOLAB_ENGINE_H

#include <stdint.h>

/* -- tiles ------------------------------------------------------------------------------ */
#define NT 28                       /* tiles in the set; index = hi*(hi+1)/2 + lo */
extern uint8_t TILE_HI[NT], TILE_LO[NT];
#define TILE_PIPS(t) (TILE_HI[t] + TILE_LO[t])
#define TILE_DOUBLE(t) (TILE_HI[t] == TILE_LO[t])

/* QW[edge_double][a][b]: the worth of tiles a and b as a quartet (0: none). Filled once from
 * dominolab.core.quartets.QUARTET_WORTH when the module is set up, so the quartet rule lives
 * only in Python. */
extern uint8_t QW[2][NT][NT];

/* -- the rules of a game, from its GameSpec and options ---------------------------------- */
#define R_TREE            0x0001u  /* spec.table == "tree": every double a spinner; else a line */
#define R_LUZAKS          0x0002u  /* spec.luzaks: a seat with no normal play lays a luzak */
#define R_LUZAK_PIPS      0x0004u  /* spec.luzak_pips: a luzak gives the opponent its pips */
#define R_QUARTETS        0x0008u  /* spec.scoring == "quartets"; else "count" */
#define R_BONEYARD        0x0010u  /* spec.has_boneyard: draw (then pass) without a fit */
#define R_OUT_BONUS       0x0020u  /* spec.out_bonus: best quartets of the loser's hand */
#define R_END_OUT         0x0040u  /* spec.hand_end == "out"; else after tiles_per_hand */
#define R_SHORT_ANY       0x0100u  /* option short_ends_any_time */
#define R_LUZAK_COUNT     0x0200u  /* option luzak_scores_count */
#define R_EDGE_DOUBLE     0x0400u  /* option edge_double */
#define R_MUST_PLAY_DRAWN 0x0800u  /* option must_play_drawn */

/* -- moves ------------------------------------------------------------------------------
 * A play is ((tile*7 + inner)*51 + port + 1)*2 + luzak, port being the Port.index of
 * dominolab.core.moves (L=0, R=1, tree port "<k><side>" = 2 + (k-1)*4 + "wens".index(side))
 * or -1 for the opening lead (whose inner half is the tile's high half). */
#define MV_DRAW 20000
#define MV_PASS 20001
#define MV_KEEP 20002
/* more legal moves than any position has: a tree luzak may go on any of up to 16 free ports
 * (an opening spinner gives 4, each later one 2 more) with either half of up to 12 tiles */
#define MV_MAX  384
static inline int mv_play(int tile, int inner, int port, int luzak) {
    return ((tile * 7 + inner) * 51 + port + 1) * 2 + luzak;
}
static inline int mv_is_play(int code) { return code < MV_DRAW; }
static inline int mv_luzak(int code) { return code & 1; }
static inline int mv_port(int code) { return (code >> 1) % 51 - 1; }
static inline int mv_inner(int code) { return ((code >> 1) / 51) % 7; }
static inline int mv_tile(int code) { return ((code >> 1) / 51) / 7; }

/* -- hand ends -------------------------------------------------------------------------- */
#define END_NONE   0
#define END_TILES  1                /* "tiles" */
#define END_DOMINO 2                /* "domino" */
#define END_BLOCK  3                /* "block" */

#define MAX_PORTS 64                /* tree port indices fit a uint64_t (tiles_per_hand <= 15) */

typedef struct {
    uint32_t flags;                 /* R_* */
    uint8_t tiles_per_hand;         /* R_END_OUT off: the hand ends with this many tiles laid */
    uint32_t hand[2];               /* each seat's tiles, bit t = tile index t */
    int32_t points[2];              /* points of this hand so far, the bonus included */
    int8_t to_move;
    int8_t opener;
    uint8_t n;                      /* tiles on the table */
    uint8_t placed[NT];             /* tile index of tile number k (placed[k-1]) */
    uint32_t table;                 /* tiles on the table, as a mask */
    /* the tree table (R_TREE) */
    int32_t count;                  /* the table count (both tables; quartet games: unused) */
    uint64_t free_by_value[7];      /* free ports by value, bit = port index */
    int8_t port_value[MAX_PORTS];   /* value of a free port, -1 when not free */
    uint8_t long_free[16];          /* free long sides of the double of tile number k */
    /* the line table (not R_TREE) */
    int8_t end_tile[2];             /* tile at end L (0) and R (1), -1 before the lead */
    uint8_t end_vals[2];            /* values a tile may match at each end, as a bit mask */
    uint8_t end_wide[2];            /* the end tile lies across (a double or a luzak) */
    /* the boneyard (R_BONEYARD) */
    uint8_t bone[NT];               /* the rest in draw order: bone[bone_next] is drawn next */
    uint8_t bone_next, bone_end;
    int8_t pending;                 /* a drawn tile that fits, to be laid (or kept); -1 */
    uint8_t passes;                 /* passes in a row */
    /* the end */
    uint8_t end;                    /* END_* */
    int8_t winner;                  /* the hand's winner, -1 for none */
    int32_t bonus;                  /* the out bonus scored */
} State;

/* A new hand: the two hands as masks, the rest (Luzak: unused; Widelec: the boneyard, next
 * draw first) and the opener. */
void st_init(State *s, uint32_t flags, int tiles_per_hand, uint32_t hand0, uint32_t hand1,
             const uint8_t *rest, int nrest, int opener);
/* The legal moves in the reference's order (Hand.legal_moves); returns how many. */
int st_legal(const State *s, int *out);
/* Apply a legal move (unchecked); the points it gave to each seat go to pts (may be NULL). */
void st_apply(State *s, int code, int pts[2]);
/* The points a move would give now, without applying it (Hand.points_of). */
void st_points_of(const State *s, int code, int pts[2]);
/* Lay a play on the table only (no hand, no points, no turn): rebuilding a view's table. */
void st_place(State *s, int code);
/* The best quartets of these tiles (a maximum-weight matching), as in best_quartets. */
int best_quartets_worth(uint32_t tiles, int edge_double);

/* Set up the tables derived from the quartet worths (the module's setup(), once, before
 * anything else): worth is QW's 2*NT*NT bytes, in QW's order. */
void rules_setup(const uint8_t *worth);

/* The worst-case greedy's choice (players.greedy.WorstCaseGreedyPlayer, "greedy-worst") for
 * the seat to move, judged from what that seat may see: its own hand and the table. */
int st_greedy_choice(const State *s);
/* The search's playout policy (players.search.greedy_playout): each side takes the move with
 * the best immediate margin, first in order on ties; with need (not NULL), stop once a
 * seat's points in the hand reach need[seat] and return 1. */
int st_greedy_playout(State *s, const int32_t *need);

/* The expected-answer greedy (players.greedy.GreedyPlayer): the opponent's answer is its
 * expected best over the hands it may hold, of the unseen tiles minus ``absent`` (the tiles
 * its moves prove it does not hold). The old rule above is the worst-case greedy. */
int st_greedy_expected_choice(const State *s, uint32_t absent);
/* A playout where each seat moves by st_greedy_expected_choice from its own hand and the
 * table (no proven facts); need as in st_greedy_playout. */
int st_greedy_expected_playout(State *s, const int32_t *need);

/* What each seat's moves in a hand prove it does not hold (core.worlds.opponent_limits, the
 * facts that allow no fitting tile), kept up move by move. */
typedef struct {
    uint32_t absent[2];             /* tiles each seat is proven not to hold */
    uint8_t drew_fit[2];            /* the seat drew a tile that fits and must lay or keep it */
    uint8_t drew_vals[2];           /* the values open before that draw */
} Proof;
void proof_init(Proof *pf);
/* The tiles with a half in a value set (bit v: pip v). */
uint32_t proof_values_tiles(unsigned values);
/* st_apply, keeping pf up to date. */
void st_apply_proving(State *s, int code, int pts[2], Proof *pf);

/* -- randomness: a small, fast generator of our own (splitmix64) -------------------------- */
typedef struct { uint64_t s; } Rng;
static inline uint64_t rng_next(Rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* uniform in 0..n-1 (n >= 1) */
static inline int rng_below(Rng *r, int n) {
    return (int)(((unsigned __int128)rng_next(r) * (uint64_t)n) >> 64);
}

/* A legal move chosen uniformly at random: moves[m == 1 ? 0 : rng_below(rng, m)] of
 * m = st_legal(s, moves), without listing the moves when it can; -1 if there is none. */
int st_random_move(const State *s, Rng *rng);

#endif
