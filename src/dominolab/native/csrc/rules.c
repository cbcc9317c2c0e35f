/* The rules of a hand, natively (RULES.md sections 2-4): legal moves, applying a move, the
 * points of a move, the end of a hand, the best quartets, and the fixed policies that the
 * search and the lab play with: the greedy players of players/greedy.py (the worst-case one,
 * st_greedy_choice; the expected-answer one, st_greedy_expected_choice, with the facts the
 * opponent's moves prove kept up by st_apply_proving) and players/search.py's playouts.
 *
 * This is a copy of dominolab.core (table.py, hand.py, quartets.py) made for speed, not a
 * second statement of the rules: wherever the two could differ the Python core is right,
 * and tests/test_native_engine.py checks this file against it move by move. Tables are
 * bit masks: a hand is a 28-bit tile mask, a tree's free ports are one 64-bit mask per
 * value, a line's ends are masks of the values a tile may match there.
 */
#include "engine.h"

#include <string.h>

/* -- tiles (RULES.md section 1): index = hi*(hi+1)/2 + lo ---------------------------------- */
uint8_t TILE_HI[NT] = {0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4,
                       5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6};
uint8_t TILE_LO[NT] = {0, 0, 1, 0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 3, 4,
                       0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6};
uint8_t QW[2][NT][NT];
/* QADJ[edge_double][t]: the tiles that form a quartet with t (set up from QW) */
static uint32_t QADJ[2][NT];
/* VALUE_TILES[v]: the tiles with a half in the value set v (bit i: pip i), 128 sets */
static uint32_t VALUE_TILES[128];
/* DIVISOR[n]: 2^64 / n rounded up, so that "count divisible by tile number n" is one
 * multiplication (Lemire, Kaser and Kurz 2019) instead of a division in every move */
static uint64_t DIVISOR[NT + 2];

/* count % n == 0, for a count below 2^32 and 1 <= n <= NT + 1 */
static inline int divides(int n, int count) {
    return (uint64_t)(uint32_t)count * DIVISOR[n] <= DIVISOR[n] - 1;
}

#define ALL_TILES ((1u << NT) - 1u)
#define CTZ32(x) __builtin_ctz(x)
#define CTZ64(x) __builtin_ctzll(x)
#define POP32(x) pop64(x)

/* Bits set, without a library call: the build targets any x86-64 (no popcnt instruction). */
static inline int pop64(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}

static void binom_setup(void);

void rules_setup(const uint8_t *worth) {
    binom_setup();
    memcpy(QW, worth, sizeof QW);
    for (int e = 0; e < 2; e++)
        for (int a = 0; a < NT; a++) {
            uint32_t m = 0;
            for (int b = 0; b < NT; b++)
                if (QW[e][a][b]) m |= 1u << b;
            QADJ[e][a] = m;
        }
    for (int n = 1; n <= NT + 1; n++)
        DIVISOR[n] = UINT64_C(0xFFFFFFFFFFFFFFFF) / (uint64_t)n + 1;
    for (unsigned v = 0; v < 128; v++) {
        uint32_t m = 0;
        for (int t = 0; t < NT; t++)
            if ((v >> TILE_HI[t]) & 1u || (v >> TILE_LO[t]) & 1u) m |= 1u << t;
        VALUE_TILES[v] = m;
    }
}

static inline int other_half(int t, int inner) {
    return inner == TILE_HI[t] ? TILE_LO[t] : TILE_HI[t];
}

static int pips_of(uint32_t tiles) {
    int total = 0;
    for (; tiles; tiles &= tiles - 1) total += TILE_PIPS(CTZ32(tiles));
    return total;
}

/* -- the state ----------------------------------------------------------------------------- */
void st_init(State *s, uint32_t flags, int tiles_per_hand, uint32_t hand0, uint32_t hand1,
             const uint8_t *rest, int nrest, int opener) {
    memset(s, 0, sizeof *s);
    s->flags = flags;
    s->tiles_per_hand = (uint8_t)tiles_per_hand;
    s->hand[0] = hand0 & ALL_TILES;
    s->hand[1] = hand1 & ALL_TILES;
    s->to_move = (int8_t)opener;
    s->opener = (int8_t)opener;
    memset(s->port_value, -1, sizeof s->port_value);
    s->end_tile[0] = s->end_tile[1] = -1;
    if (nrest > NT) nrest = NT;
    if (nrest > 0) memcpy(s->bone, rest, (size_t)nrest);
    s->bone_end = (uint8_t)(nrest > 0 ? nrest : 0);
    s->pending = -1;
    s->winner = -1;
}

/* -- the tree table (RULES.md section 2; core/table.py TreeTable) -------------------------- */
#define SIDE_W 0
#define SIDE_E 1
#define SIDE_N 2
#define SIDE_S 3

static inline void add_port(State *s, int port, int value) {
    s->port_value[port] = (int8_t)value;
    s->free_by_value[value] |= 1ull << port;
}

/* Lay a tile on the tree; returns the new table count (TreeTable.place). */
static int tree_place(State *s, int t, int inner, int port) {
    int k = ++s->n;
    s->placed[k - 1] = (uint8_t)t;
    s->table |= 1u << t;
    int base = 2 + (k - 1) * 4;
    int hi = TILE_HI[t], lo = TILE_LO[t];
    int short_any = (s->flags & R_SHORT_ANY) != 0;
    int count;
    if (port < 0) {
        /* the opening: a double offers both long sides (and its short ends when they are
         * open at any time), a non-double both its halves */
        if (hi == lo) {
            add_port(s, base + SIDE_W, hi);
            add_port(s, base + SIDE_E, hi);
            if (short_any) {
                add_port(s, base + SIDE_N, hi);
                add_port(s, base + SIDE_S, hi);
            }
            s->long_free[k] = 2;
        } else {
            add_port(s, base + SIDE_W, hi);
            add_port(s, base + SIDE_E, lo);
            s->long_free[k] = 0;
        }
        s->count = hi + lo;
        return s->count;
    }
    int value = s->port_value[port];
    s->port_value[port] = -1;
    s->free_by_value[value] &= ~(1ull << port);
    int j = (port - 2) / 4 + 1, side = (port - 2) & 3;
    int parent = s->placed[j - 1];
    count = s->count;
    if (TILE_DOUBLE(parent)) {
        /* a spinner counts twice its value while a long side is free; its short ends count
         * nothing, and open once both long sides are taken unless open at any time */
        if (side == SIDE_W || side == SIDE_E) {
            if (--s->long_free[j] == 0) {
                count -= TILE_PIPS(parent);
                if (!short_any) {
                    int jb = 2 + (j - 1) * 4;
                    add_port(s, jb + SIDE_N, TILE_HI[parent]);
                    add_port(s, jb + SIDE_S, TILE_HI[parent]);
                }
            }
        }
    } else {
        count -= value;
    }
    int e = base + SIDE_E;
    if (hi == lo) {
        add_port(s, e, hi);
        if (short_any) {
            add_port(s, e + 1, hi);
            add_port(s, e + 2, hi);
        }
        s->long_free[k] = 1;
        count += hi + lo;
    } else {
        int outer = inner == hi ? lo : hi;
        add_port(s, e, outer);
        s->long_free[k] = 0;
        count += outer;
    }
    s->count = count;
    return count;
}

/* The tree's count once the tile were laid (TreeTable.count_after). */
static inline int tree_count_after(const State *s, int t, int inner, int port) {
    if (port < 0) return TILE_PIPS(t);
    int count = s->count;
    int j = (port - 2) / 4 + 1, side = (port - 2) & 3;
    int parent = s->placed[j - 1];
    if (TILE_DOUBLE(parent)) {
        if ((side == SIDE_W || side == SIDE_E) && s->long_free[j] == 1)
            count -= TILE_PIPS(parent);
    } else {
        count -= s->port_value[port];
    }
    if (TILE_DOUBLE(t)) return count + TILE_PIPS(t);
    return count + other_half(t, inner);
}

/* The values with a free port, as a set (bit v: pip v). */
static inline unsigned tree_values(const State *s) {
    unsigned v = 0;
    for (int i = 0; i < 7; i++) v |= (unsigned)(s->free_by_value[i] != 0) << i;
    return v;
}

static int tree_normal(const State *s, uint32_t tiles, int *out) {
    int m = 0;
    tiles &= VALUE_TILES[tree_values(s)];   /* only the tiles that fit somewhere */
    for (; tiles; tiles &= tiles - 1) {
        int t = CTZ32(tiles), lo = TILE_LO[t], hi = TILE_HI[t];
        for (uint64_t p = s->free_by_value[lo]; p; p &= p - 1)
            out[m++] = mv_play(t, lo, CTZ64(p), 0);
        if (hi != lo)
            for (uint64_t p = s->free_by_value[hi]; p; p &= p - 1)
                out[m++] = mv_play(t, hi, CTZ64(p), 0);
    }
    return m;
}

/* Every luzak (section 2): any tile on any free port, either half touching. */
static int tree_luzaks(const State *s, uint32_t tiles, int *out) {
    uint64_t free = 0;
    for (int v = 0; v < 7; v++) free |= s->free_by_value[v];
    int m = 0;
    for (; tiles; tiles &= tiles - 1) {
        int t = CTZ32(tiles), lo = TILE_LO[t], hi = TILE_HI[t];
        for (uint64_t p = free; p; p &= p - 1) out[m++] = mv_play(t, lo, CTZ64(p), 1);
        if (hi != lo)
            for (uint64_t p = free; p; p &= p - 1) out[m++] = mv_play(t, hi, CTZ64(p), 1);
    }
    return m;
}

/* -- the line table (RULES.md sections 3 and 4; core/table.py LineTable) ------------------- */

/* The line's count (section 3): each end counts its outer half, or both halves when its tile
 * lies across (a double or a luzak); a lone opening tile counts its pips once. */
static int line_count(const State *s) {
    if (s->n <= 1) return s->n ? TILE_PIPS(s->placed[0]) : 0;
    int total = 0;
    for (int e = 0; e < 2; e++)
        total += s->end_wide[e] ? TILE_PIPS(s->end_tile[e]) : CTZ32(s->end_vals[e]);
    return total;
}

static inline int line_count_after(const State *s, int t, int inner, int port, int luzak) {
    if (port < 0) return TILE_PIPS(t);
    int other = 1 - port;
    int rest = s->end_wide[other] ? TILE_PIPS(s->end_tile[other]) : CTZ32(s->end_vals[other]);
    if (luzak || TILE_DOUBLE(t)) return rest + TILE_PIPS(t);
    return rest + other_half(t, inner);
}

static void line_place(State *s, int t, int inner, int port, int luzak) {
    int k = ++s->n;
    s->placed[k - 1] = (uint8_t)t;
    s->table |= 1u << t;
    int hi = TILE_HI[t], lo = TILE_LO[t];
    if (port < 0) {
        s->end_tile[0] = s->end_tile[1] = (int8_t)t;
        s->end_vals[0] = (uint8_t)(1u << hi);
        s->end_vals[1] = (uint8_t)(1u << lo);
        s->end_wide[0] = s->end_wide[1] = hi == lo;
    } else {
        s->end_tile[port] = (int8_t)t;
        if (luzak) {            /* across the end: the next tile may match either half */
            s->end_vals[port] = (uint8_t)((1u << hi) | (1u << lo));
            s->end_wide[port] = 1;
        } else if (hi == lo) {
            s->end_vals[port] = (uint8_t)(1u << hi);
            s->end_wide[port] = 1;
        } else {
            s->end_vals[port] = (uint8_t)(1u << (inner == hi ? lo : hi));
            s->end_wide[port] = 0;
        }
    }
    if (!(s->flags & R_QUARTETS)) s->count = line_count(s);
}

/* Plays matching an end, by tile, inner half (lo, hi), end (L, R). */
static int line_normal(const State *s, uint32_t tiles, int *out) {
    unsigned L = s->end_vals[0], R = s->end_vals[1];
    int m = 0;
    tiles &= VALUE_TILES[L | R];            /* only the tiles that fit an end */
    for (; tiles; tiles &= tiles - 1) {
        int t = CTZ32(tiles), lo = TILE_LO[t], hi = TILE_HI[t];
        if ((L >> lo) & 1) out[m++] = mv_play(t, lo, 0, 0);
        if ((R >> lo) & 1) out[m++] = mv_play(t, lo, 1, 0);
        if (hi != lo) {
            if ((L >> hi) & 1) out[m++] = mv_play(t, hi, 0, 0);
            if ((R >> hi) & 1) out[m++] = mv_play(t, hi, 1, 0);
        }
    }
    return m;
}

/* A line luzak lies across an end (section 3): one play per end, written with its high half. */
static int line_luzaks(uint32_t tiles, int *out) {
    int m = 0;
    for (; tiles; tiles &= tiles - 1) {
        int t = CTZ32(tiles);
        out[m++] = mv_play(t, TILE_HI[t], 0, 1);
        out[m++] = mv_play(t, TILE_HI[t], 1, 1);
    }
    return m;
}

static int openings(uint32_t tiles, int *out) {
    int m = 0;
    for (; tiles; tiles &= tiles - 1) {
        int t = CTZ32(tiles);
        out[m++] = mv_play(t, TILE_HI[t], -1, 0);
    }
    return m;
}

static inline int normal_plays(const State *s, uint32_t tiles, int *out) {
    if (s->n == 0) return openings(tiles, out);
    return (s->flags & R_TREE) ? tree_normal(s, tiles, out) : line_normal(s, tiles, out);
}

static inline int fits(const State *s, int t) {
    if (s->n == 0) return 1;
    unsigned halves = (1u << TILE_HI[t]) | (1u << TILE_LO[t]);
    if (s->flags & R_TREE)
        return (s->free_by_value[TILE_HI[t]] | s->free_by_value[TILE_LO[t]]) != 0;
    return ((s->end_vals[0] | s->end_vals[1]) & halves) != 0;
}

/* -- legal moves (Hand.legal_moves) -------------------------------------------------------- */
int st_legal(const State *s, int *out) {
    if (s->end) return 0;
    if (s->pending >= 0) {
        /* section 4: a drawn tile that fits must be laid now, or kept when the option says */
        int m = normal_plays(s, 1u << s->pending, out);
        if (!(s->flags & R_MUST_PLAY_DRAWN)) out[m++] = MV_KEEP;
        return m;
    }
    uint32_t hand = s->hand[s->to_move];
    int m = normal_plays(s, hand, out);
    if (m) return m;
    if (s->flags & R_LUZAKS)    /* sections 2, 3: no normal play anywhere: a luzak */
        return (s->flags & R_TREE) ? tree_luzaks(s, hand, out) : line_luzaks(hand, out);
    /* section 4: draw, or pass once the boneyard is empty */
    out[0] = (s->flags & R_BONEYARD) && s->bone_next < s->bone_end ? MV_DRAW : MV_PASS;
    return 1;
}

/* The k-th set bit of a mask (k from 0). */
static inline int nth_bit64(uint64_t m, int k) {
    while (k-- > 0) m &= m - 1;
    return CTZ64(m);
}

int st_random_move(const State *s, Rng *rng) {
    /* the common case, a normal play from the hand, is counted and picked without listing
     * the moves: the k-th of st_legal's list, k drawn the same way */
    if (!s->end && s->pending < 0 && s->n > 0) {
        uint32_t tiles = s->hand[s->to_move];
        if (s->flags & R_TREE) {
            const uint64_t *fbv = s->free_by_value;
            uint32_t fit = tiles & VALUE_TILES[tree_values(s)];
            if (fit) {
                int ports[7], m = 0;
                for (int v = 0; v < 7; v++) ports[v] = pop64(fbv[v]);
                for (uint32_t x = fit; x; x &= x - 1) {
                    int t = CTZ32(x), lo = TILE_LO[t], hi = TILE_HI[t];
                    m += ports[lo] + (hi != lo) * ports[hi];
                }
                int k = m == 1 ? 0 : rng_below(rng, m);
                for (uint32_t x = fit;; x &= x - 1) {
                    int t = CTZ32(x), lo = TILE_LO[t], hi = TILE_HI[t];
                    if (k < ports[lo]) return mv_play(t, lo, nth_bit64(fbv[lo], k), 0);
                    k -= ports[lo];
                    if (hi != lo) {
                        if (k < ports[hi]) return mv_play(t, hi, nth_bit64(fbv[hi], k), 0);
                        k -= ports[hi];
                    }
                }
            }
        } else {
            unsigned L = s->end_vals[0], R = s->end_vals[1];
            uint32_t fit = tiles & VALUE_TILES[L | R];
            if (fit) {
                int m = 0;
                for (uint32_t x = fit; x; x &= x - 1) {
                    int t = CTZ32(x), lo = TILE_LO[t], hi = TILE_HI[t];
                    m += (int)(((L >> lo) & 1) + ((R >> lo) & 1));
                    if (hi != lo) m += (int)(((L >> hi) & 1) + ((R >> hi) & 1));
                }
                int k = m == 1 ? 0 : rng_below(rng, m);
                for (uint32_t x = fit;; x &= x - 1) {
                    int t = CTZ32(x), lo = TILE_LO[t], hi = TILE_HI[t];
                    for (int h = 0; h < (hi == lo ? 1 : 2); h++) {
                        int v = h ? hi : lo;
                        if ((L >> v) & 1 && k-- == 0) return mv_play(t, v, 0, 0);
                        if ((R >> v) & 1 && k-- == 0) return mv_play(t, v, 1, 0);
                    }
                }
            }
        }
    }
    int moves[MV_MAX];
    int m = st_legal(s, moves);
    if (m == 0) return -1;
    return moves[m == 1 ? 0 : rng_below(rng, m)];
}

/* -- placing and scoring ------------------------------------------------------------------- */

/* Lay a play on the table; returns the count (count games) after it. */
static inline int table_place(State *s, int code) {
    int t = mv_tile(code), inner = mv_inner(code), port = mv_port(code);
    if (s->flags & R_TREE) return tree_place(s, t, inner, port);
    line_place(s, t, inner, port, mv_luzak(code));
    return s->count;
}

void st_place(State *s, int code) {
    if (mv_is_play(code)) table_place(s, code);
}

/* Points of laying tile number n that leaves count on the table (hand.py luzak_points):
 * section 2: the layer scores a count divisible by N, a luzak gives the opponent its pips
 * (and its layer the count only with the option); section 3: a luzak's count goes to the
 * opponent, and there is no pip bonus. */
static inline void luzak_points(uint32_t flags, int count, int n, int seat, int luzak_tile,
                                int pts[2]) {
    pts[0] = pts[1] = 0;
    int pips_bonus = (flags & R_LUZAK_PIPS) != 0;
    if (count > 0 && divides(n, count)) {
        if (luzak_tile < 0) pts[seat] += count;
        else if (pips_bonus) {
            if (flags & R_LUZAK_COUNT) pts[seat] += count;
        } else pts[1 - seat] += count;
    }
    if (luzak_tile >= 0 && pips_bonus) pts[1 - seat] += TILE_PIPS(luzak_tile);
}

void st_points_of(const State *s, int code, int pts[2]) {
    pts[0] = pts[1] = 0;
    if (!mv_is_play(code)) return;
    int t = mv_tile(code), inner = mv_inner(code), port = mv_port(code), lz = mv_luzak(code);
    if (s->flags & R_QUARTETS) {
        /* section 4: the two end tiles once it is laid form a quartet */
        if (s->n == 0 || port < 0) return;
        int worth = QW[(s->flags & R_EDGE_DOUBLE) != 0][t][s->end_tile[1 - port]];
        pts[s->to_move] = worth;
        return;
    }
    int count = (s->flags & R_TREE) ? tree_count_after(s, t, inner, port)
                                    : line_count_after(s, t, inner, port, lz);
    luzak_points(s->flags, count, s->n + 1, s->to_move, lz ? t : -1, pts);
}

/* The end of a hand that ends when a seat goes out or both pass (section 4): the winner
 * scores the best quartets left in the loser's hand. */
static void finish_out(State *s, int end, int winner) {
    s->end = (uint8_t)end;
    s->winner = (int8_t)winner;
    if (winner >= 0 && (s->flags & R_OUT_BONUS)) {
        int bonus = best_quartets_worth(s->hand[1 - winner], (s->flags & R_EDGE_DOUBLE) != 0);
        s->bonus = bonus;
        s->points[winner] += bonus;
    }
}

void st_apply(State *s, int code, int pts[2]) {
    int seat = s->to_move;
    int g0 = 0, g1 = 0;
    uint32_t flags = s->flags;
    if (mv_is_play(code)) {
        int t = mv_tile(code);
        s->hand[seat] &= ~(1u << t);
        s->pending = -1;
        s->passes = 0;
        int count = table_place(s, code);
        int gain[2] = {0, 0};
        if (flags & R_QUARTETS) {
            if (s->n >= 2) {
                int worth = QW[(flags & R_EDGE_DOUBLE) != 0][s->end_tile[0]][s->end_tile[1]];
                gain[seat] = worth;
            }
        } else {
            luzak_points(flags, count, s->n, seat, mv_luzak(code) ? t : -1, gain);
        }
        g0 = gain[0];
        g1 = gain[1];
        s->points[0] += g0;
        s->points[1] += g1;
        if (flags & R_END_OUT) {
            if (!s->hand[seat]) finish_out(s, END_DOMINO, seat);   /* domino: stays to move */
            else s->to_move = (int8_t)(1 - seat);
        } else {
            s->to_move = (int8_t)(1 - seat);
            if (s->n == s->tiles_per_hand) {
                /* sections 2, 3: the hand ends with its tiles laid; the winner is the seat
                 * that scored more in it */
                s->end = END_TILES;
                s->winner = (int8_t)(s->points[0] > s->points[1] ? 0
                                     : s->points[1] > s->points[0] ? 1 : -1);
            }
        }
    } else if (code == MV_DRAW) {
        /* section 4: the drawn tile goes into the hand; if it fits, the same seat must lay
         * it (or keep it), else the turn passes */
        int t = s->bone[s->bone_next++];
        s->hand[seat] |= 1u << t;
        s->passes = 0;
        if (fits(s, t)) s->pending = (int8_t)t;
        else s->to_move = (int8_t)(1 - seat);
    } else if (code == MV_KEEP) {
        s->pending = -1;
        s->passes = 0;
        s->to_move = (int8_t)(1 - seat);
    } else {
        /* a pass; two in a row block the hand: fewer pips in hand wins, equal: nobody */
        if (++s->passes >= 2) {
            int a = pips_of(s->hand[0]), b = pips_of(s->hand[1]);
            finish_out(s, END_BLOCK, a < b ? 0 : b < a ? 1 : -1);
        } else {
            s->to_move = (int8_t)(1 - seat);
        }
    }
    if (pts) {
        pts[0] = g0;
        pts[1] = g1;
    }
}

/* -- the best quartets (section 4; quartets.py best_quartets) -------------------------------
 * An exact maximum-weight matching by memoised search: take the lowest tile that still has a
 * partner, and either leave it out or pair it with each partner in turn. Tiles without a
 * partner are dropped first, which keeps the states few; large sets memoise them. */
#define BQ_SLOTS 4096
typedef struct {
    uint32_t key[BQ_SLOTS];     /* 0: empty (the empty set is never stored) */
    int16_t value[BQ_SLOTS];
} BqMemo;

static int bq_solve(uint32_t free, const uint32_t *adj, const uint8_t (*w)[NT], BqMemo *memo) {
    uint32_t live = 0;
    for (uint32_t x = free; x; x &= x - 1) {
        int t = CTZ32(x);
        if (adj[t] & free) live |= 1u << t;
    }
    if (!live) return 0;
    unsigned slot = 0;
    if (memo) {
        slot = (unsigned)((live * 0x9E3779B1u) >> 20) & (BQ_SLOTS - 1);
        for (int probe = 0; probe < 8; probe++) {
            unsigned at = (slot + (unsigned)probe) & (BQ_SLOTS - 1);
            if (memo->key[at] == live) return memo->value[at];
            if (memo->key[at] == 0) break;
        }
    }
    int i = CTZ32(live);
    uint32_t rest = live & ~(1u << i);
    int best = bq_solve(rest, adj, w, memo);
    for (uint32_t x = adj[i] & rest; x; x &= x - 1) {
        int j = CTZ32(x);
        int v = w[i][j] + bq_solve(rest & ~(1u << j), adj, w, memo);
        if (v > best) best = v;
    }
    if (memo) {
        for (int probe = 0; probe < 8; probe++) {
            unsigned at = (slot + (unsigned)probe) & (BQ_SLOTS - 1);
            if (memo->key[at] == 0) {
                memo->key[at] = live;
                memo->value[at] = (int16_t)best;
                break;
            }
        }
    }
    return best;
}

int best_quartets_worth(uint32_t tiles, int edge_double) {
    int e = edge_double != 0;
    tiles &= ALL_TILES;
    if (POP32(tiles) <= 10) return bq_solve(tiles, QADJ[e], (const uint8_t (*)[NT])QW[e], NULL);
    BqMemo memo;
    memset(memo.key, 0, sizeof memo.key);
    return bq_solve(tiles, QADJ[e], (const uint8_t (*)[NT])QW[e], &memo);
}

/* -- the worst-case greedy (players/greedy.py WorstCaseGreedyPlayer, "greedy-worst") ------- */

/* The most the opponent (to lay tile n+1 on c's table) scores over the seat with a normal play
 * of one of these tiles, and at least 0. */
static int best_answer(const State *c, uint32_t tiles) {
    int best = 0;
    uint32_t flags = c->flags;
    int n1 = c->n + 1;
    if (flags & R_QUARTETS) {
        const uint8_t (*w)[NT] = (const uint8_t (*)[NT])QW[(flags & R_EDGE_DOUBLE) != 0];
        unsigned L = c->end_vals[0], R = c->end_vals[1];
        int lt = c->end_tile[0], rt = c->end_tile[1];
        for (; tiles; tiles &= tiles - 1) {
            int t = CTZ32(tiles);
            unsigned halves = (1u << TILE_HI[t]) | (1u << TILE_LO[t]);
            /* laid at L the other end is R's tile, and the other way round */
            if ((L & halves) && w[t][rt] > best) best = w[t][rt];
            if ((R & halves) && w[t][lt] > best) best = w[t][lt];
        }
        return best;
    }
    if (flags & R_TREE) {
        for (; tiles; tiles &= tiles - 1) {
            int t = CTZ32(tiles), lo = TILE_LO[t], hi = TILE_HI[t];
            for (int h = 0; h < (hi == lo ? 1 : 2); h++) {
                int v = h ? hi : lo;
                for (uint64_t p = c->free_by_value[v]; p; p &= p - 1) {
                    int count = tree_count_after(c, t, v, CTZ64(p));
                    if (count > best && divides(n1, count)) best = count;
                }
            }
        }
        return best;
    }
    unsigned vals[2] = {c->end_vals[0], c->end_vals[1]};
    for (; tiles; tiles &= tiles - 1) {
        int t = CTZ32(tiles), lo = TILE_LO[t], hi = TILE_HI[t];
        for (int h = 0; h < (hi == lo ? 1 : 2); h++) {
            int v = h ? hi : lo;
            for (int e = 0; e < 2; e++) {
                if (!((vals[e] >> v) & 1)) continue;
                int count = line_count_after(c, t, v, e, 0);
                if (count > best && divides(n1, count)) best = count;
            }
        }
    }
    return best;
}

/* -- the search's playout (players/search.py greedy_playout) ------------------------------- */
int st_greedy_playout(State *s, const int32_t *need) {
    int moves[MV_MAX];
    while (!s->end) {
        int m = st_legal(s, moves);
        if (m == 0) break;      /* not a position of a real hand: nothing to play */
        int move = moves[0];
        if (m > 1) {
            int seat = s->to_move, best = -10000;
            for (int i = 0; i < m; i++) {
                int pts[2];
                st_points_of(s, moves[i], pts);
                int v = pts[seat] - pts[1 - seat];
                if (v > best) {
                    best = v;
                    move = moves[i];
                }
            }
        }
        st_apply(s, move, NULL);
        if (need && (s->points[0] >= need[0] || s->points[1] >= need[1])) return 1;
    }
    return 0;
}

/* -- the expected-answer greedy (players/greedy.py GreedyPlayer) ---------------------------
 * For each legal play: gain = my points - the opponent's, minus the opponent's EXPECTED best
 * answer over its possible hands. The opponent holds k of the u candidate tiles (the unseen
 * tiles minus those its moves prove it cannot hold), each k-subset equally likely: with the
 * candidates' best answers sorted a_1 >= a_2 >= ..., E = sum_i a_i C(u-i, k-1) / C(u, k).
 * Scores are compared scaled by C(u, k), in integers, so that C and Python agree exactly. */
static int64_t BINOM[NT + 1][NT + 1];

static void binom_setup(void) {
    for (int n = 0; n <= NT; n++) {
        BINOM[n][0] = 1;
        for (int r = 1; r <= n; r++)
            BINOM[n][r] = BINOM[n - 1][r - 1] + (r <= n - 1 ? BINOM[n - 1][r] : 0);
    }
}

/* sum_i a_i C(u-i, k-1) over the candidates' best answers sorted descending (the expected
 * best answer times C(u, k)) on c's table, the opponent to lay tile c->n + 1. */
static int64_t expected_answer(const State *c, uint32_t cand, int u, int k) {
    if (k <= 0) return 0;
    int a[NT], na = 0;
    for (uint32_t x = cand; x; x &= x - 1) {
        int v = best_answer(c, 1u << CTZ32(x));
        if (v <= 0) continue;
        int j = na++;
        while (j > 0 && a[j - 1] < v) {   /* insertion, descending */
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
    int64_t sum = 0;
    for (int i = 0; i < na; i++) {
        int rest = u - (i + 1);
        if (rest < k - 1) break;
        sum += (int64_t)a[i] * BINOM[rest][k - 1];
    }
    return sum;
}

/* The rule both greedy players share (players/greedy.py): for each legal move, its points'
 * margin less the opponent's answer on the table it leaves (none when the move ends the
 * hand); the best score wins, ties going to a move that empties the hand, then to the first
 * in legal order. The answer is the best over every tile in `tiles` (greedy-worst, scale 1)
 * or, with `expected`, the expected best of k of those u tiles held by the opponent, every
 * k-subset alike; then every score is scaled by C(u, k), so that it is a whole number and
 * the comparisons are exact, as in Python. */
static int greedy_pick(const State *s, uint32_t tiles, int expected) {
    int moves[MV_MAX];
    int m = st_legal(s, moves);
    if (m <= 1) return m ? moves[0] : -1;
    int seat = s->to_move, opp = 1 - seat;
    int u = POP32(tiles), k = POP32(s->hand[opp]);
    if (k > u) k = u;
    int64_t scale = expected ? BINOM[u][k] : 1;
    int last_tile = POP32(s->hand[seat]) == 1;
    int best = moves[0], best_out = 0, have = 0;
    int64_t best_score = 0;
    for (int i = 0; i < m; i++) {
        int code = moves[i], out = 0;
        int64_t score = 0;
        if (mv_is_play(code)) {
            int pts[2];
            st_points_of(s, code, pts);
            int64_t gain = (int64_t)(pts[seat] - pts[opp]) * scale;
            out = last_tile;
            State c = *s;
            table_place(&c, code);
            if (out || (!(s->flags & R_BONEYARD) && c.n >= s->tiles_per_hand)) score = gain;
            else score = gain - (expected ? expected_answer(&c, tiles, u, k)
                                          : best_answer(&c, tiles));
        }
        if (!have || score > best_score || (score == best_score && out > best_out)) {
            best = code;
            best_score = score;
            best_out = out;
            have = 1;
        }
    }
    return best;
}

int st_greedy_choice(const State *s) {
    return greedy_pick(s, ALL_TILES & ~(s->hand[s->to_move] | s->table), 0);
}

int st_greedy_expected_choice(const State *s, uint32_t absent) {
    return greedy_pick(s, ALL_TILES & ~(s->hand[s->to_move] | s->table | absent), 1);
}

/* The values a tile may match now (bit v: pip v); none before the lead. */
static unsigned open_values(const State *s) {
    if (s->n == 0) return 0;
    if (s->flags & R_TREE) return tree_values(s);
    return (unsigned)(s->end_vals[0] | s->end_vals[1]);
}

void proof_init(Proof *pf) { memset(pf, 0, sizeof *pf); }

uint32_t proof_values_tiles(unsigned values) { return VALUE_TILES[values & 127u]; }

void st_apply_proving(State *s, int code, int pts[2], Proof *pf) {
    int p = s->to_move;
    unsigned v = open_values(s);
    if (mv_is_play(code)) {
        if (mv_luzak(code)) pf->absent[p] |= VALUE_TILES[v];
        if (pf->drew_fit[p]) pf->absent[p] |= VALUE_TILES[pf->drew_vals[p]];
        pf->drew_fit[p] = 0;
    } else if (code == MV_KEEP) {
        pf->absent[p] = 0;      /* a hidden draw: the earlier facts allow one fitting tile */
        pf->drew_fit[p] = 0;
    } else if (code == MV_PASS) {
        pf->absent[p] |= VALUE_TILES[v];
    }
    st_apply(s, code, pts);
    if (code == MV_DRAW) {
        if (s->pending == (int8_t)-1 || s->to_move != p) {
            pf->absent[p] = VALUE_TILES[v];     /* a hidden draw, and the fact it proves */
        } else {
            pf->drew_fit[p] = 1;
            pf->drew_vals[p] = (uint8_t)v;
        }
    }
}

int st_greedy_expected_playout(State *s, const int32_t *need) {
    int moves[MV_MAX];
    while (!s->end) {
        int m = st_legal(s, moves);
        if (m == 0) break;
        int move = m == 1 ? moves[0] : st_greedy_expected_choice(s, 0);
        st_apply(s, move, NULL);
        if (need && (s->points[0] >= need[0] || s->points[1] >= need[1])) return 1;
    }
    return 0;
}
