/* The native search (search.h): PIMC and single-observer ISMCTS over the rules of
 * engine.h, the same algorithms as dominolab.players.search, step for step.
 *
 * One iteration is: one world sampled from what the view allows (the opponent's tiles and
 * the rest, exactly from the posterior given the opponent's luzaks, draws and passes),
 * then either every root move played out greedily in it (PIMC) or one descent of the
 * shared tree by UCB with "seen" counts, one expansion and a greedy playout (ISMCTS), and
 * the value (the chance to win the match, or the point margin) added up. The Python side
 * (dominolab/native/search.py) turns the sums into the players' MoveValue lists.
 *
 * Nothing here is global and mutable: a search owns its tree, its generator and its
 * sampler, and runs without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "search.h"

#define ALL_TILES ((1u << NT) - 1u)
#define KNOWN_FLAGS (R_TREE | R_LUZAKS | R_LUZAK_PIPS | R_QUARTETS | R_BONEYARD | R_OUT_BONUS \
                     | R_END_OUT | R_SHORT_ANY | R_LUZAK_COUNT | R_EDGE_DOUBLE               \
                     | R_MUST_PLAY_DRAWN)
/* A move's number holds ports up to index 49 (engine.h): tile numbers up to 12 give them, so
 * a tree table takes at most 13 tiles a hand (Luzak lays 12). */
#define MAX_TREE_TILES 13
#define MAX_DEPTH 256               /* far more moves than a hand has */
#define MAX_ITERATIONS 10000000LL   /* players.base.MAX_WORLDS */
#define MAX_SECONDS 3600.0          /* players.base.MAX_SECONDS */
#define MAX_POINTS 1000000LL
#define MAX_SAMPLES 1000000LL
#define FIRST_NODES 4096

/* -- reading Python values: every nonsense value is a ValueError naming it ---------------- */

static int bad_value(const char *what, const char *should, PyObject *got) {
    PyErr_Format(PyExc_ValueError, "%s must be %s, not %R", what, should, got);
    return -1;
}

/* An int in lo..hi (a bool counts as 0 or 1). */
static int as_int(PyObject *o, long long lo, long long hi, const char *what, long long *out) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_ValueError, "%s must be a whole number from %lld to %lld, not %R",
                     what, lo, hi, o);
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be a whole number from %lld to %lld, not %R",
                     what, lo, hi, o);
        return -1;
    }
    *out = v;
    return 0;
}

/* A finite number in lo..hi. */
static int as_double(PyObject *o, double lo, double hi, const char *what, double *out) {
    if (!PyFloat_Check(o) && !PyLong_Check(o))
        return bad_value(what, "a number", o);
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return bad_value(what, "a finite number", o);
    }
    if (!isfinite(v) || v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be a number from %g to %g, not %R", what, lo,
                     hi, o);
        return -1;
    }
    *out = v;
    return 0;
}

/* A tuple or list (of want items, unless want < 0), as a new PySequence_Fast reference. */
static PyObject *as_seq(PyObject *o, Py_ssize_t want, const char *what) {
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        PyErr_Format(PyExc_ValueError, "%s must be a tuple or a list, not %R", what, o);
        return NULL;
    }
    PyObject *seq = PySequence_Fast(o, what);
    if (seq == NULL)
        return NULL;
    if (want >= 0 && PySequence_Fast_GET_SIZE(seq) != want) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd items, not %zd", what, want,
                     PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return NULL;
    }
    return seq;
}

static int popcount(uint32_t x) { return __builtin_popcount(x); }

/* -- the world sampler (core.worlds.HiddenWorlds, players.search.WorldSampler) ------------- */

/* The exact posterior over the opponent's tiles, as core.worlds.HiddenWorlds computes it: the
 * unseen tiles fall into groups of exchangeable tiles (the same admissible sources), and a
 * choice says how many tiles of each group the opponent holds, with its weight (the number
 * of consistent worlds). Given a choice, the tiles of each group are a uniform subset and
 * the rest is a uniform order; so a weighted choice then uniform subsets is exact. No
 * choices: uniform worlds (no inference). Still called the limits: the search's argument. */
#define MAX_GROUPS NT
#define MAX_CHOICES 8192

typedef struct {
    int n;                          /* choices; 0: uniform worlds */
    int ngroups;
    uint32_t group[MAX_GROUPS];     /* each group's tiles as a mask */
    double cum[MAX_CHOICES];        /* cumulative weights */
    uint8_t count[MAX_CHOICES][MAX_GROUPS];
} Limits;

static int read_limits(PyObject *o, Limits *out) {
    out->n = out->ngroups = 0;
    if ((PyTuple_Check(o) || PyList_Check(o)) && PySequence_Size(o) == 0)
        return 0;                   /* nothing: uniform worlds */
    PyObject *pair = as_seq(o, 2, "the world distribution (groups, choices)");
    if (pair == NULL)
        return -1;
    PyObject *groups = as_seq(PySequence_Fast_GET_ITEM(pair, 0), -1, "groups");
    PyObject *choices = groups == NULL ? NULL
                        : as_seq(PySequence_Fast_GET_ITEM(pair, 1), -1, "choices");
    int err = choices == NULL;
    Py_ssize_t ng = err ? 0 : PySequence_Fast_GET_SIZE(groups);
    Py_ssize_t n = err ? 0 : PySequence_Fast_GET_SIZE(choices);
    if (!err && (ng > MAX_GROUPS || n > MAX_CHOICES)) {
        PyErr_Format(PyExc_ValueError, "at most %d groups and %d choices, not %zd and %zd",
                     MAX_GROUPS, MAX_CHOICES, ng, n);
        err = 1;
    }
    out->ngroups = (int)ng;
    out->n = (int)n;
    uint32_t seen = 0;
    for (Py_ssize_t g = 0; !err && g < ng; g++) {
        long long mask;
        err = as_int(PySequence_Fast_GET_ITEM(groups, g), 1, ALL_TILES, "a group", &mask);
        if (!err && (seen & (uint32_t)mask)) {
            PyErr_SetString(PyExc_ValueError, "the groups must not share a tile");
            err = 1;
        }
        seen |= (uint32_t)mask;
        out->group[g] = (uint32_t)mask;
    }
    double total = 0.0;
    for (Py_ssize_t i = 0; !err && i < n; i++) {
        PyObject *choice = as_seq(PySequence_Fast_GET_ITEM(choices, i), 2, "a choice");
        PyObject *counts = choice == NULL ? NULL
                           : as_seq(PySequence_Fast_GET_ITEM(choice, 1), ng, "a choice's counts");
        double w = 0.0;
        err = counts == NULL
              || as_double(PySequence_Fast_GET_ITEM(choice, 0), 0.0, 1e300, "a weight", &w);
        for (Py_ssize_t g = 0; !err && g < ng; g++) {
            long long c = 0;
            err = as_int(PySequence_Fast_GET_ITEM(counts, g), 0,
                         popcount(out->group[g]), "a count", &c);
            out->count[i][g] = (uint8_t)c;
        }
        Py_XDECREF(counts);
        Py_XDECREF(choice);
        total += w;
        out->cum[i] = total;
    }
    if (!err && n > 0 && !(total > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "the choices' weights must not all be 0");
        err = 1;
    }
    Py_XDECREF(choices);
    Py_XDECREF(groups);
    Py_DECREF(pair);
    return err ? -1 : 0;
}

/* Deals the unseen tiles: k to the opponent, the rest in uniformly random order (the
 * boneyard, next draw first): a choice by weight, then per group a uniform subset of its
 * count (partial Fisher-Yates), or with no choices a plain shuffle. */
typedef struct {
    uint8_t tiles[NT];              /* the unseen tiles, shuffled in place sample by sample */
    int n, k;
    const Limits *limits;
} Sampler;

/* ValueError (-1) unless every group is unseen and every choice gives the opponent k tiles. */
static int sampler_init(Sampler *sp, uint32_t unseen, int k, const Limits *limits) {
    sp->n = 0;
    for (int t = 0; t < NT; t++)
        if (unseen >> t & 1u)
            sp->tiles[sp->n++] = (uint8_t)t;
    sp->k = k;
    sp->limits = limits;
    for (int g = 0; g < limits->ngroups; g++)
        if (limits->group[g] & ~unseen) {
            PyErr_SetString(PyExc_ValueError, "a group holds a tile that is not unseen");
            return -1;
        }
    for (int i = 0; i < limits->n; i++) {
        int sum = 0;
        for (int g = 0; g < limits->ngroups; g++)
            sum += limits->count[i][g];
        if (sum != k) {
            PyErr_Format(PyExc_ValueError, "a choice gives the opponent %d tiles, not %d", sum, k);
            return -1;
        }
    }
    return 0;
}

static void shuffle(uint8_t *a, int n, Rng *rng) {
    for (int i = n - 1; i > 0; i--) {
        int j = rng_below(rng, i + 1);
        uint8_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* One deal: returns the opponent's tiles as a mask, the rest in order in rest[n - k]. */
static uint32_t sampler_deal(Sampler *sp, Rng *rng, uint8_t *rest) {
    const Limits *lim = sp->limits;
    int n = sp->n, k = sp->k;
    if (lim->n) {
        double u = (double)(rng_next(rng) >> 11) * 0x1p-53 * lim->cum[lim->n - 1];
        int lo = 0, hi = lim->n - 1;  /* the first choice whose cumulative weight exceeds u */
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (lim->cum[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        uint32_t chosen = 0;
        for (int g = 0; g < lim->ngroups; g++) {
            int c = lim->count[lo][g];
            if (!c)
                continue;
            uint8_t tiles[NT];
            int m = 0;
            for (uint32_t bits = lim->group[g]; bits; bits &= bits - 1)
                tiles[m++] = (uint8_t)__builtin_ctz(bits);
            for (int i = 0; i < c; i++) {
                int j = i + rng_below(rng, m - i);
                uint8_t t = tiles[i];
                tiles[i] = tiles[j];
                tiles[j] = t;
                chosen |= 1u << tiles[i];
            }
        }
        int nrest = 0;
        for (int i = 0; i < n; i++)
            if (!(chosen >> sp->tiles[i] & 1u))
                rest[nrest++] = sp->tiles[i];
        shuffle(rest, nrest, rng);
        return chosen;
    }
    shuffle(sp->tiles, n, rng);
    uint32_t chosen = 0;
    for (int i = 0; i < k; i++)
        chosen |= 1u << sp->tiles[i];
    memcpy(rest, sp->tiles + k, (size_t)(n - k));
    return chosen;
}

/* -- the value of a hand's end (players.search.MatchValue) -------------------------------- */

typedef struct {
    int on;                         /* 0: the point margin is the value (PIMC) */
    int seat;
    double banked[2];               /* mine, the opponent's: totals before this hand */
    double target, scale, per_hand;
    int at_once, one_more;
    int has_need;
    int32_t need[2];                /* by seat: points still needed in this hand (win at once) */
    double margin_weight;           /* share of the hand's margin in the value (0: none) */
    double lead;                    /* the next hand's opening, worth to me (MatchValue.lead):
                                     * in the chance shown, not in the value backed up */
} Value;

static double logistic(double x) {
    if (x < -30)
        return 0.0;
    if (x > 30)
        return 1.0;
    return 1.0 / (1.0 + exp(-x));
}

/* The chance to win the match after a hand ending with these points, the next hand's
 * opening worth `lead` points to me (MatchValue._chance: 0 in the value the search backs
 * up, v->lead in the chance it reports). */
static double match_value_of(const Value *v, const int32_t *points, int reached, double lead) {
    double mine = v->banked[0] + points[v->seat];
    double theirs = v->banked[1] + points[1 - v->seat];
    if (reached || (v->at_once && (mine >= v->target || theirs >= v->target)))
        return mine >= v->target ? 1.0 : 0.0;
    double diff = mine - theirs;
    double top = mine > theirs ? mine : theirs;
    if (top >= v->target) {
        if (!v->one_more)
            return diff > 0 ? 1.0 : diff < 0 ? 0.0 : 0.5;
        return logistic((diff + lead) / v->scale);
    }
    double hands_left = 1.0 + (v->target - top) / v->per_hand;
    return logistic((diff + lead) / (v->scale * sqrt(hands_left)));
}

/* The chance shown for a hand's end (MatchValue.chance): the search's own chance, `chance`,
 * with the next hand's opening counted. */
static double shown_chance(const Value *v, const int32_t *points, int reached, double chance) {
    return v->lead == 0.0 ? chance : match_value_of(v, points, reached, v->lead);
}

/* The value of a hand's outcome: its chance to win the match (match_value_of), blended with
 * the hand's point margin (as a logistic of its scale) when margin_weight is above 0. */
static double blended(const Value *v, const int32_t *points, double match) {
    if (v->margin_weight <= 0)
        return match;
    double hand = logistic((double)(points[v->seat] - points[1 - v->seat]) / v->scale);
    return (1.0 - v->margin_weight) * match + v->margin_weight * hand;
}

/* value: None (the margin), or (banked_mine, banked_theirs, target, scale, per_hand,
 * at_once, one_more, need, margin weight, lead) with need None or (seat 0's, seat 1's). */
static int read_value(PyObject *o, int seat, Value *v) {
    memset(v, 0, sizeof *v);
    v->seat = seat;
    if (o == Py_None)
        return 0;
    PyObject *seq = as_seq(o, 10, "value");
    if (seq == NULL)
        return -1;
    PyObject **it = PySequence_Fast_ITEMS(seq);
    long long mine, theirs, target, at_once, one_more;
    double scale, per_hand;
    int err = as_int(it[0], -MAX_POINTS, MAX_POINTS, "the banked points", &mine)
              || as_int(it[1], -MAX_POINTS, MAX_POINTS, "the banked points", &theirs)
              || as_int(it[2], 1, MAX_POINTS, "the target", &target)
              || as_double(it[3], 1e-9, 1e9, "the scale", &scale)
              || as_double(it[4], 1e-9, 1e9, "the points per hand", &per_hand)
              || as_int(it[5], 0, 1, "at_once", &at_once)
              || as_int(it[6], 0, 1, "one_more", &one_more);
    if (!err && it[7] != Py_None) {
        PyObject *need = as_seq(it[7], 2, "need");
        long long n0, n1;
        err = need == NULL
              || as_int(PySequence_Fast_GET_ITEM(need, 0), -MAX_POINTS, MAX_POINTS, "need",
                        &n0)
              || as_int(PySequence_Fast_GET_ITEM(need, 1), -MAX_POINTS, MAX_POINTS, "need",
                        &n1);
        Py_XDECREF(need);
        if (!err) {
            v->has_need = 1;
            v->need[0] = (int32_t)n0;
            v->need[1] = (int32_t)n1;
        }
    }
    double weight = 0.0, lead = 0.0;
    if (!err)
        err = as_double(it[8], 0.0, 1.0, "the margin weight", &weight)
              || as_double(it[9], -MAX_POINTS, MAX_POINTS, "the lead", &lead);
    Py_DECREF(seq);
    if (err)
        return -1;
    v->on = 1;
    v->margin_weight = weight;
    v->lead = lead;
    v->banked[0] = (double)mine;
    v->banked[1] = (double)theirs;
    v->target = (double)target;
    v->scale = scale;
    v->per_hand = per_hand;
    v->at_once = (int)at_once;
    v->one_more = (int)one_more;
    return 0;
}

/* -- the position: a view's facts, rebuilt as an engine state ------------------------------ */

typedef struct {
    State base;                     /* the position, the opponent's tiles a stand-in */
    int me;
    uint32_t unseen;
    int k;                          /* tiles the opponent holds */
    int nrest;                      /* the other unseen tiles: unused (Luzak) or boneyard */
    int nroot;
    int root[MV_MAX];               /* the root's legal moves, in legal order */
} Position;

/* The legal moves here of a seat holding just this one tile (no drawn tile pending). The
 * table is checked move by move with it before the engine lays it unchecked: a move is
 * placeable exactly when it is among its own tile's moves (a luzak too, since a luzak is
 * laid only when its tile fits nowhere). */
static int moves_of_tile(const State *s, int tile, int *moves) {
    State probe = *s;
    probe.to_move = 0;
    probe.hand[0] = 1u << tile;
    probe.pending = -1;
    probe.end = END_NONE;
    return st_legal(&probe, moves);
}

static int placeable(const State *s, int code) {
    int moves[MV_MAX];
    int n = moves_of_tile(s, mv_tile(code), moves);
    for (int i = 0; i < n; i++)
        if (moves[i] == code)
            return 1;
    return 0;
}

static int fits_table(const State *s, int tile) {
    int moves[MV_MAX];
    int n = moves_of_tile(s, tile, moves);
    for (int i = 0; i < n; i++)
        if (mv_is_play(moves[i]))
            return 1;
    return 0;
}

/* rules: (flags, tiles_per_hand); position: (seat, hand, table, points, to_move, opener,
 * pending, passes, unseen, opponent_tiles, boneyard). */
static int read_position(PyObject *rules, PyObject *position, Position *p) {
    PyObject *r = as_seq(rules, 2, "rules");
    if (r == NULL)
        return -1;
    long long flags, tph;
    int err = as_int(PySequence_Fast_GET_ITEM(r, 0), 0, KNOWN_FLAGS, "the rule flags", &flags)
              || as_int(PySequence_Fast_GET_ITEM(r, 1), 0, NT, "tiles_per_hand", &tph);
    Py_DECREF(r);
    if (err)
        return -1;
    if ((flags & ~(long long)KNOWN_FLAGS) != 0) {
        PyErr_Format(PyExc_ValueError, "unknown rule flags in %lld", flags);
        return -1;
    }
    if (!(flags & R_END_OUT) && tph < 1) {
        PyErr_SetString(PyExc_ValueError,
                        "a game that ends after a number of tiles needs tiles_per_hand");
        return -1;
    }
    if ((flags & R_TREE) && ((flags & R_END_OUT) || tph > MAX_TREE_TILES)) {
        PyErr_Format(PyExc_ValueError, "a tree table holds at most %d tiles a hand",
                     MAX_TREE_TILES);
        return -1;
    }
    if ((flags & R_TREE) && (flags & R_QUARTETS)) {
        PyErr_SetString(PyExc_ValueError, "quartets are scored on a line, not a tree");
        return -1;
    }

    PyObject *seq = as_seq(position, 11, "position");
    if (seq == NULL)
        return -1;
    PyObject **it = PySequence_Fast_ITEMS(seq);
    long long seat, hand, to_move, opener, pending, passes, unseen, k, boneyard;
    long long pts[2] = {0, 0};
    err = as_int(it[0], 0, 1, "seat", &seat)
          || as_int(it[1], 1, ALL_TILES, "the hand", &hand)
          || as_int(it[4], 0, 1, "to_move", &to_move)
          || as_int(it[5], 0, 1, "opener", &opener)
          || as_int(it[6], -1, NT - 1, "pending", &pending)
          || as_int(it[7], 0, 1, "passes", &passes)
          || as_int(it[8], 0, ALL_TILES, "unseen", &unseen)
          || as_int(it[9], 1, NT, "opponent_tiles", &k)
          || as_int(it[10], 0, NT, "boneyard", &boneyard);
    PyObject *points = err ? NULL : as_seq(it[3], 2, "points");
    if (points != NULL) {
        err = as_int(PySequence_Fast_GET_ITEM(points, 0), 0, MAX_POINTS, "points", &pts[0])
              || as_int(PySequence_Fast_GET_ITEM(points, 1), 0, MAX_POINTS, "points", &pts[1]);
        Py_DECREF(points);
    } else {
        err = 1;
    }
    PyObject *table = err ? NULL : as_seq(it[2], -1, "table");
    Py_DECREF(seq);
    if (err || table == NULL) {
        Py_XDECREF(table);
        return -1;
    }
    const char *why = NULL;
    uint32_t own = (uint32_t)hand, hidden = (uint32_t)unseen;
    if (to_move != seat)
        why = "the seat searched must be the seat to move";
    else if (own & hidden)
        why = "the hand and the unseen tiles overlap";
    else if (k > popcount(hidden))
        why = "the opponent holds more tiles than are unseen";
    else if ((flags & R_BONEYARD) && boneyard != popcount(hidden) - k)
        why = "the boneyard must be the unseen tiles the opponent does not hold";
    else if (!(flags & R_BONEYARD) && boneyard != 0)
        why = "this game has no boneyard";
    else if (pending >= 0 && (!(flags & R_BONEYARD) || !(own >> pending & 1u)))
        why = "a pending tile is a drawn tile in the hand (boneyard games)";
    else if (passes && (!(flags & R_BONEYARD) || boneyard != 0))
        why = "a pass needs an empty boneyard";
    if (why != NULL) {
        Py_DECREF(table);
        PyErr_SetString(PyExc_ValueError, why);
        return -1;
    }

    /* a stand-in world: the opponent holds the first k unseen tiles */
    uint32_t theirs = 0;
    uint8_t rest[NT];
    int nrest = 0, taken = 0;
    for (int t = 0; t < NT; t++) {
        if (!(hidden >> t & 1u))
            continue;
        if (taken < k) {
            theirs |= 1u << t;
            taken++;
        } else {
            rest[nrest++] = (uint8_t)t;
        }
    }
    State *s = &p->base;
    int me = (int)seat;
    st_init(s, (uint32_t)flags, (int)tph, me == 0 ? own : theirs, me == 0 ? theirs : own,
            rest, nrest, (int)opener);
    Py_ssize_t nt = PySequence_Fast_GET_SIZE(table);
    uint32_t laid = 0;
    for (Py_ssize_t i = 0; i < nt && why == NULL; i++) {
        long long code;
        if (as_int(PySequence_Fast_GET_ITEM(table, i), 0, MV_DRAW - 1, "a table move", &code)) {
            Py_DECREF(table);
            return -1;
        }
        int tile = mv_tile((int)code);
        if (tile >= NT || (laid | own | hidden) >> tile & 1u)
            why = "a table move lays a tile that is not there to lay";
        else if (!(flags & R_END_OUT) && i >= tph - 1)
            why = "the hand is over: the table is full";
        else if (!placeable(s, (int)code))
            why = "a table move does not fit the table before it";
        else {
            st_place(s, (int)code);
            laid |= 1u << tile;
        }
    }
    Py_DECREF(table);
    if (why == NULL && (laid | own | hidden) != ALL_TILES)
        why = "the hand, the table and the unseen tiles must be the 28 tiles, each once";
    if (why == NULL && pending >= 0 && !fits_table(s, (int)pending))
        why = "a pending tile must fit the table";
    if (why != NULL) {
        PyErr_SetString(PyExc_ValueError, why);
        return -1;
    }
    s->points[0] = (int32_t)pts[0];
    s->points[1] = (int32_t)pts[1];
    s->to_move = (int8_t)to_move;
    s->pending = (int8_t)pending;
    s->passes = (uint8_t)passes;
    p->me = me;
    p->unseen = hidden;
    p->k = (int)k;
    p->nrest = nrest;
    p->nroot = st_legal(s, p->root);
    if (p->nroot < 1) {
        PyErr_SetString(PyExc_ValueError, "the seat to move has no legal move");
        return -1;
    }
    return 0;
}

/* world: (opponent mask, rest in order: the boneyard next draw first, or the unused). */
static int read_world(PyObject *o, const Position *p, uint32_t *opp, uint8_t *rest) {
    PyObject *seq = as_seq(o, 2, "world");
    if (seq == NULL)
        return -1;
    long long mask;
    if (as_int(PySequence_Fast_GET_ITEM(seq, 0), 0, ALL_TILES, "the world's opponent hand",
               &mask)) {
        Py_DECREF(seq);
        return -1;
    }
    PyObject *r = as_seq(PySequence_Fast_GET_ITEM(seq, 1), p->nrest, "the world's rest");
    Py_DECREF(seq);
    if (r == NULL)
        return -1;
    uint32_t m = (uint32_t)mask, seen = m;
    if ((m & ~p->unseen) || popcount(m) != p->k) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_ValueError,
                        "the world's opponent hand must be opponent_tiles unseen tiles");
        return -1;
    }
    for (int i = 0; i < p->nrest; i++) {
        long long t;
        if (as_int(PySequence_Fast_GET_ITEM(r, i), 0, NT - 1, "a tile", &t)) {
            Py_DECREF(r);
            return -1;
        }
        if (!(p->unseen >> t & 1u) || (seen >> t & 1u)) {
            Py_DECREF(r);
            PyErr_SetString(PyExc_ValueError,
                            "the world's rest must be the other unseen tiles, each once");
            return -1;
        }
        seen |= 1u << t;
        rest[i] = (uint8_t)t;
    }
    Py_DECREF(r);
    *opp = m;
    return 0;
}

static int read_seed(PyObject *o, uint64_t *out) {
    if (!PyLong_Check(o))
        return bad_value("seed", "a whole number from 0 to 2**64-1", o);
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        return bad_value("seed", "a whole number from 0 to 2**64-1", o);
    }
    *out = (uint64_t)v;
    return 0;
}

/* -- the search ---------------------------------------------------------------------------- */

typedef struct {
    Position pos;
    Value value;
    Limits limits;
    Sampler sampler;
    Rng rng;
    int has_world;
    uint32_t world_opp;
    uint8_t world_rest[NT];
    long long iterations;
    double seconds;                 /* 0: no time limit */
    double exploration;
    double greedy;                  /* ismcts: chance the opponent makes the greedy's move */
    int ismcts;
    int expected;                   /* kind 'pimc-expected': expected-answer greedy playouts */
    /* the totals, by root move in legal order */
    long long count[MV_MAX];
    double sum[MV_MAX], margin[MV_MAX];
    double chance[MV_MAX];          /* summed chance to win the match (the value unblended) */
    int rep[MV_MAX];                /* root index of each root move's class representative */
    int has_only;                   /* search only the root moves marked in allowed */
    uint8_t allowed[MV_MAX];        /* by root index of a class representative */
} Search;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The next world: the position with the opponent's tiles and the rest dealt. */
static void next_world(Search *s, State *w) {
    uint8_t dealt[NT];
    const uint8_t *rest = dealt;
    uint32_t opp;
    if (s->has_world) {
        opp = s->world_opp;
        rest = s->world_rest;
    } else {
        opp = sampler_deal(&s->sampler, &s->rng, dealt);
    }
    *w = s->pos.base;
    w->hand[1 - s->pos.me] = opp;
    memcpy(w->bone, rest, (size_t)s->pos.nrest);
    w->bone_next = 0;
    w->bone_end = (uint8_t)s->pos.nrest;
}

static int root_index(const Search *s, int code) {
    for (int i = 0; i < s->pos.nroot; i++)
        if (s->pos.root[i] == code)
            return i;
    return -1;
}

/* -- equivalent moves (dominolab.core.equivalence): one move to the search ---------------- */

/* canon[p]: the canonical port of free port p (the lowest free port of its class), p itself
 * when it is alone in its class; ports that are not free are left alone. */
static void canon_ports(const State *s, int8_t *canon) {
    for (int p = 0; p < MAX_PORTS; p++)
        canon[p] = (int8_t)p;
    if (s->n == 0)
        return;
    if (!(s->flags & R_TREE)) {
        int alike;
        if (s->n == 1)
            alike = TILE_DOUBLE(s->placed[0]);
        else if (s->flags & R_QUARTETS)
            alike = 0;              /* a quartet reads the end tiles, which differ */
        else
            alike = s->end_vals[0] == s->end_vals[1] && s->end_wide[0] == s->end_wide[1]
                    && (!s->end_wide[0]
                        || TILE_PIPS(s->end_tile[0]) == TILE_PIPS(s->end_tile[1]));
        if (alike)
            canon[1] = 0;
        return;
    }
    int8_t first[4 * 7];            /* by kind*7 + value: the first free port seen */
    memset(first, -1, sizeof first);
    int top = 2 + 4 * s->n;
    if (top > MAX_PORTS)
        top = MAX_PORTS;
    for (int p = 2; p < top; p++) {
        int value = s->port_value[p];
        if (value < 0)
            continue;
        int k = (p - 2) / 4 + 1, side = (p - 2) % 4;
        int kind;
        if (!TILE_DOUBLE(s->placed[k - 1]))
            kind = 0;               /* a non-double's port */
        else if (side >= 2)
            kind = 1;               /* a short end */
        else if (s->long_free[k] == 2)
            kind = 3;               /* a long side of the opening double, both free */
        else
            kind = 2;               /* a double's last free long side */
        int key = kind * 7 + value;
        if (first[key] < 0)
            first[key] = (int8_t)p;
        canon[p] = first[key];
    }
}

/* The representative of a move's class (the move itself for a draw, pass, keep or lead). */
static int canon_code(int code, const int8_t *canon) {
    if (!mv_is_play(code))
        return code;
    int port = mv_port(code);
    if (port < 0 || canon[port] == port)
        return code;
    return mv_play(mv_tile(code), mv_inner(code), canon[port], mv_luzak(code));
}

/* Keep one move of each class, its representative (which is legal and comes before the
 * other members in legal order, so the order of the classes is the order of their first
 * members); returns how many are left. */
static int distinct_moves(const State *s, int *moves, int n) {
    if (n < 2)
        return n;
    int8_t canon[MAX_PORTS];
    canon_ports(s, canon);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (canon_code(moves[i], canon) == moves[i])
            moves[m++] = moves[i];
    return m;
}

/* s->rep[i]: the root index of root move i's representative. */
static void root_classes(Search *s) {
    int8_t canon[MAX_PORTS];
    canon_ports(&s->pos.base, canon);
    for (int i = 0; i < s->pos.nroot; i++) {
        int r = root_index(s, canon_code(s->pos.root[i], canon));
        s->rep[i] = r >= 0 ? r : i;
    }
}

/* only: None (every root move) or the root moves to search (codes); a class is searched
 * when one of its members is named. */
static int read_only(PyObject *o, Search *s) {
    if (o == Py_None)
        return 0;
    PyObject *seq = PySequence_Fast(o, "only must be None or a sequence of move codes");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int err = n < 1 ? bad_value("only", "None or at least one legal move", o) : 0;
    for (Py_ssize_t j = 0; j < n && !err; j++) {
        long long code;
        if (as_int(PySequence_Fast_GET_ITEM(seq, j), 0, MV_KEEP, "a move of only", &code)) {
            err = -1;
            break;
        }
        int i = root_index(s, (int)code);
        if (i < 0)
            err = bad_value("a move of only", "a legal move here",
                            PySequence_Fast_GET_ITEM(seq, j));
        else
            s->allowed[s->rep[i]] = 1;
    }
    Py_DECREF(seq);
    s->has_only = !err;
    return err;
}

/* Members of a class get their representative's totals. */
static void share_totals(Search *s) {
    for (int i = 0; i < s->pos.nroot; i++) {
        int r = s->rep[i];
        if (r != i) {
            s->count[i] = s->count[r];
            s->sum[i] = s->sum[r];
            s->margin[i] = s->margin[r];
            s->chance[i] = s->chance[r];
        }
    }
}

/* PIMC: every root move played out greedily in the same worlds. */
static void run_pimc(Search *s) {
    int me = s->pos.me, opp = 1 - me;
    const int32_t *need = s->value.has_need ? s->value.need : NULL;
    double deadline = s->seconds > 0 ? now_seconds() + s->seconds : 0;
    long long done = 0;
    while (done < s->iterations) {
        State world;
        next_world(s, &world);
        int before = world.points[me] - world.points[opp];
        for (int i = 0; i < s->pos.nroot; i++) {
            if (s->rep[i] != i || (s->has_only && !s->allowed[i]))
                continue;           /* a class is played out once, by its representative */
            State hand = world;
            st_apply(&hand, s->pos.root[i], NULL);
            int reached = s->expected ? st_greedy_expected_playout(&hand, need)
                                      : st_greedy_playout(&hand, need);
            int margin = hand.points[me] - hand.points[opp];
            s->margin[i] += margin - before;
            if (s->value.on) {
                double chance = match_value_of(&s->value, hand.points, reached, 0.0);
                s->chance[i] += shown_chance(&s->value, hand.points, reached, chance);
                s->sum[i] += blended(&s->value, hand.points, chance);
            } else {
                s->sum[i] += (double)(margin - before);
            }
        }
        done++;
        if (deadline > 0 && now_seconds() >= deadline)
            break;
    }
    for (int i = 0; i < s->pos.nroot; i++)
        s->count[i] = done;
}

/* A node of the information-set tree: the statistics of the move that led to it. */
typedef struct {
    int32_t child;                  /* first child, -1 for none */
    int32_t sibling;                /* next child of the same parent, -1 for none */
    int32_t code;                   /* the move */
    uint32_t visits;
    uint32_t seen;                  /* times the move was legal when its parent was visited */
    int32_t mover;                  /* the seat that made the move */
    double reward;                  /* summed reward for the mover */
} Node;

typedef struct {
    Node *at;
    int32_t n, cap;
} Pool;

/* A new node (its index), or -1 when memory runs out. The pool may move: hold indices. */
static int32_t pool_add(Pool *pool, int code, int mover) {
    if (pool->n == pool->cap) {
        if (pool->cap > INT32_MAX / 2)
            return -1;
        int32_t cap = pool->cap ? pool->cap * 2 : FIRST_NODES;
        Node *at = realloc(pool->at, sizeof(Node) * (size_t)cap);
        if (at == NULL)
            return -1;
        pool->at = at;
        pool->cap = cap;
    }
    Node *node = &pool->at[pool->n];
    node->child = node->sibling = -1;
    node->code = code;
    node->visits = 0;
    node->seen = 1;
    node->mover = mover;
    node->reward = 0.0;
    return pool->n++;
}

static int32_t child_of(const Pool *pool, int32_t node, int code) {
    for (int32_t c = pool->at[node].child; c >= 0; c = pool->at[c].sibling)
        if (pool->at[c].code == code)
            return c;
    return -1;
}

/* The greedy's replies already found, by node of the tree: at a node the table and the
 * searching seat's tiles are fixed by the path, so the opponent's greedy move there depends
 * only on the tiles it holds in the world (and which one is a drawn tile to lay). A world
 * drawn from a model's beliefs gives the opponent one of a few hundred hands, so most
 * visits find their answer here. Fixed size; a newer entry overwrites an older. */
#define GREEDY_SLOTS (1 << 16)
typedef struct {
    uint64_t key;                   /* 0: empty */
    int32_t move;
} GreedySlot;

static int greedy_reply(GreedySlot *memo, int32_t node, const State *st) {
    uint64_t key = ((uint64_t)(uint32_t)node << 34)
                   | ((uint64_t)(uint8_t)(st->pending + 1) << 28)
                   | (uint64_t)st->hand[st->to_move];
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    GreedySlot *slot = &memo[h >> (64 - 16)];
    if (slot->key != key) {
        int8_t canon[MAX_PORTS];
        canon_ports(st, canon);
        slot->key = key;
        slot->move = canon_code(st_greedy_expected_choice(st, 0), canon);
    }
    return slot->move;
}

/* ISMCTS (Cowling, Powley and Whitehouse, 2012), as players.search._Ismcts. Returns 0, or
 * -1 when the tree could not grow (the totals so far stay valid). */
static int run_ismcts(Search *s) {
    int me = s->pos.me, opp = 1 - me;
    const int32_t *need = s->value.has_need ? s->value.need : NULL;
    double c = s->exploration;
    double deadline = s->seconds > 0 ? now_seconds() + s->seconds : 0;
    Pool pool = {NULL, 0, 0};
    int status = 0;
    int32_t root = pool_add(&pool, -1, opp);
    if (root < 0)
        return -1;
    GreedySlot *memo = NULL;
    if (s->greedy > 0) {
        memo = calloc(GREEDY_SLOTS, sizeof *memo);
        if (memo == NULL) {
            free(pool.at);
            return -1;
        }
    }
    int before = s->pos.base.points[me] - s->pos.base.points[opp];
    long long done = 0;
    while (done < s->iterations) {
        State st;
        next_world(s, &st);
        int32_t path[MAX_DEPTH];
        int depth = 0;
        int32_t node = root;
        int first = -1, reached = 0;
        while (st.end == END_NONE && depth < MAX_DEPTH) {
            int moves[MV_MAX];
            int32_t kids[MV_MAX];
            int fresh[MV_MAX];
            int nm = st_legal(&st, moves), nf = 0;
            if (nm == 0)
                break;                  /* not a position of a real hand: nothing to play */
            nm = distinct_moves(&st, moves, nm);    /* a class is one move of the tree */
            if (node == root && s->has_only) {
                int kept = 0;
                for (int i = 0; i < nm; i++) {
                    int r = root_index(s, moves[i]);
                    if (r >= 0 && s->allowed[r])
                        moves[kept++] = moves[i];
                }
                nm = kept;
                if (nm == 0)
                    break;
            }
            for (int i = 0; i < nm; i++) {
                kids[i] = child_of(&pool, node, moves[i]);
                if (kids[i] < 0)
                    fresh[nf++] = i;
            }
            int32_t child;
            int move;
            /* the opponent read as a greedy player: at its node, with chance s->greedy, it
             * makes the expected-answer greedy's move (its class's), expanded if new */
            int pick = -1;
            if (s->greedy > 0 && st.to_move == opp && nm > 1
                && (double)(rng_next(&s->rng) >> 11) * 0x1.0p-53 < s->greedy) {
                int g = greedy_reply(memo, node, &st);
                for (int i = 0; i < nm; i++)
                    if (moves[i] == g)
                        pick = i;
            }
            if (pick >= 0 && kids[pick] >= 0) {
                child = kids[pick];
                move = moves[pick];
                nf = 0;
                for (int i = 0; i < nm; i++)
                    if (kids[i] >= 0)
                        pool.at[kids[i]].seen++;
            } else if (pick >= 0 || nf) {
                if (pick < 0)
                    pick = nf == 1 ? fresh[0] : fresh[rng_below(&s->rng, nf)];
                else
                    nf = 1;
                move = moves[pick];
                child = pool_add(&pool, move, st.to_move);
                if (child < 0) {
                    status = -1;
                    break;
                }
                pool.at[child].sibling = pool.at[node].child;
                pool.at[node].child = child;
                for (int i = 0; i < nm; i++)
                    if (kids[i] >= 0)
                        pool.at[kids[i]].seen++;
            } else {
                double best = -1.0;
                child = -1;
                for (int i = 0; i < nm; i++) {
                    Node *ch = &pool.at[kids[i]];
                    double score = ch->reward / ch->visits
                                   + c * sqrt(log((double)ch->seen) / ch->visits);
                    if (score > best || child < 0) {
                        best = score;
                        child = kids[i];
                    }
                    ch->seen++;
                }
                move = pool.at[child].code;
            }
            st_apply(&st, move, NULL);
            if (first < 0)
                first = root_index(s, move);
            path[depth++] = child;
            node = child;
            if (need != NULL && (st.points[0] >= need[0] || st.points[1] >= need[1])) {
                reached = 1;
                break;
            }
            if (nf)
                break;
        }
        if (status)
            break;
        if (!reached && st.end == END_NONE)
            reached = s->expected ? st_greedy_expected_playout(&st, need)
                                  : st_greedy_playout(&st, need);
        double chance = match_value_of(&s->value, st.points, reached, 0.0);
        double reward = blended(&s->value, st.points, chance);
        double shown = shown_chance(&s->value, st.points, reached, chance);
        for (int d = 0; d < depth; d++) {
            Node *n = &pool.at[path[d]];
            n->visits++;
            n->reward += n->mover == me ? reward : 1.0 - reward;
        }
        if (first >= 0) {
            s->margin[first] += (st.points[me] - st.points[opp]) - before;
            s->chance[first] += shown;
        }
        done++;
        if (deadline > 0 && now_seconds() >= deadline)
            break;
    }
    for (int32_t ch = pool.at[root].child; ch >= 0; ch = pool.at[ch].sibling) {
        int i = root_index(s, pool.at[ch].code);
        if (i >= 0) {
            s->count[i] = pool.at[ch].visits;
            s->sum[i] = pool.at[ch].reward;
        }
    }
    free(pool.at);
    free(memo);
    return status;
}

const char dl_search_doc[] =
    "search(rules, position, limits, value, budget, kind, seed, world=None, only=None, "
    "greedy=0)\n--\n\n"
    "Search one position as dominolab.players.search does and return, for each root legal\n"
    "move in legal order, (code, count, value_sum, margin_sum, chance_sum): count is the\n"
    "worlds (pimc) or the visits (ismcts), margin_sum the summed point margin gained from\n"
    "the move to the end of the hand, chance_sum the summed chance to win the match (the\n"
    "value before its blend with the hand's margin; 0 without a value).\n\n"
    "rules: (flags, tiles_per_hand). position: (seat, hand mask, table codes in order,\n"
    "(points of seat 0, of seat 1), to_move, opener, pending tile or -1, passes in a row,\n"
    "unseen mask, opponent's tile count, boneyard size). limits: the world distribution\n"
    "(group masks, [(weight, counts per group)]), no choices for uniform worlds.\n"
    "value: None (the point margin) or (banked mine, banked theirs, target, scale,\n"
    "per_hand, at_once, one_more, need pair or None, margin weight 0..1, lead: the next\n"
    "hand's opening worth to the seat, counted in the chance sums only). budget: (iterations, seconds or None,\n"
    "exploration). kind: 'pimc', 'pimc-expected' (PIMC whose playouts use the\n"
    "expected-answer greedy of each seat), 'ismcts' (which needs a value) or\n"
    "'ismcts-expected' (ISMCTS with the expected-answer greedy's playouts).\n"
    "seed: 0..2**64-1.\n"
    "world: None (sample worlds) or (opponent mask, the rest in order).\n"
    "only: None (search every root move) or the codes of the root moves to search (the\n"
    "others get zero totals). greedy: 0..1 (0 unless given), ismcts: the chance that the\n"
    "opponent, at each of its nodes with a choice, makes the expected-answer greedy's move\n"
    "(a model of a greedy opponent) instead of the move UCB picks for it.\n"
    "Equivalent root moves (dominolab.core.equivalence) are one move: searched once, by\n"
    "their representative, and given the same totals.\n"
    "ValueError for nonsense; MemoryError if the tree cannot grow.";

PyObject *dl_search(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"rules", "position", "limits", "value", "budget", "kind", "seed",
                            "world", "only", "greedy", NULL};
    PyObject *rules, *position, *limits, *value, *budget, *kind, *seed, *world = Py_None;
    PyObject *only = Py_None, *greedy = NULL;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOO|OOO:search", names, &rules,
                                     &position, &limits, &value, &budget, &kind, &seed,
                                     &world, &only, &greedy))
        return NULL;
    Search *s = calloc(1, sizeof(Search));
    if (s == NULL)
        return PyErr_NoMemory();
    PyObject *result = NULL;
    uint64_t seed_value;
    if (read_position(rules, position, &s->pos) || read_limits(limits, &s->limits)
        || read_value(value, s->pos.me, &s->value) || read_seed(seed, &seed_value))
        goto done;
    if (PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "pimc") == 0)
        s->ismcts = 0;
    else if (PyUnicode_Check(kind)
             && PyUnicode_CompareWithASCIIString(kind, "pimc-expected") == 0)
        s->expected = 1;
    else if (PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, "ismcts") == 0)
        s->ismcts = 1;
    else if (PyUnicode_Check(kind)
             && PyUnicode_CompareWithASCIIString(kind, "ismcts-expected") == 0)
        s->ismcts = s->expected = 1;
    else {
        bad_value("kind", "'pimc', 'pimc-expected', 'ismcts' or 'ismcts-expected'", kind);
        goto done;
    }
    if (s->ismcts && !s->value.on) {
        PyErr_SetString(PyExc_ValueError, "the ismcts search needs a value (the match's)");
        goto done;
    }
    PyObject *b = as_seq(budget, 3, "budget");
    if (b == NULL)
        goto done;
    int err = as_int(PySequence_Fast_GET_ITEM(b, 0), 1, MAX_ITERATIONS, "iterations",
                     &s->iterations)
              || (PySequence_Fast_GET_ITEM(b, 1) != Py_None
                  && as_double(PySequence_Fast_GET_ITEM(b, 1), 1e-9, MAX_SECONDS, "seconds",
                               &s->seconds))
              || as_double(PySequence_Fast_GET_ITEM(b, 2), 0.0, 1e6, "exploration",
                           &s->exploration);
    Py_DECREF(b);
    if (err || (greedy != NULL
                && as_double(greedy, 0.0, 1.0, "the opponent's greedy share", &s->greedy)))
        goto done;
    if (world != Py_None) {
        if (read_world(world, &s->pos, &s->world_opp, s->world_rest))
            goto done;
        s->has_world = 1;
    }
    s->rng.s = seed_value;
    if (sampler_init(&s->sampler, s->pos.unseen, s->pos.k, &s->limits))
        goto done;

    int status = 0;
    root_classes(s);
    if (read_only(only, s))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    if (s->ismcts)
        status = run_ismcts(s);
    else
        run_pimc(s);
    share_totals(s);
    Py_END_ALLOW_THREADS
    if (status) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyList_New(s->pos.nroot);
    if (result == NULL)
        goto done;
    for (int i = 0; i < s->pos.nroot; i++) {
        PyObject *item = Py_BuildValue("(iLddd)", s->pos.root[i], s->count[i], s->sum[i],
                                       s->margin[i], s->chance[i]);
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    free(s);
    return result;
}

const char dl_sample_worlds_doc[] =
    "sample_worlds(unseen, opponent_tiles, limits, count, seed)\n--\n\n"
    "The search's world sampler alone: count deals of the unseen tiles (a mask), each\n"
    "(opponent mask, the rest in order), exactly from the world distribution limits\n"
    "(group masks, [(weight, counts per group)]; no choices: uniform). For tests.";

PyObject *dl_sample_worlds(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *names[] = {"unseen", "opponent_tiles", "limits", "count", "seed", NULL};
    PyObject *unseen_o, *k_o, *limits_o, *count_o, *seed_o;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO:sample_worlds", names, &unseen_o,
                                     &k_o, &limits_o, &count_o, &seed_o))
        return NULL;
    long long unseen, k, count;
    uint64_t seed;
    Limits *limits = malloc(sizeof(Limits));
    if (limits == NULL)
        return PyErr_NoMemory();
    PyObject *result = NULL;
    if (as_int(unseen_o, 0, ALL_TILES, "unseen", &unseen)
        || as_int(k_o, 0, NT, "opponent_tiles", &k)
        || as_int(count_o, 1, MAX_SAMPLES, "count", &count) || read_limits(limits_o, limits)
        || read_seed(seed_o, &seed))
        goto done;
    if (k > popcount((uint32_t)unseen)) {
        PyErr_SetString(PyExc_ValueError, "the opponent holds more tiles than are unseen");
        goto done;
    }
    Sampler sampler;
    if (sampler_init(&sampler, (uint32_t)unseen, (int)k, limits))
        goto done;
    Rng rng = {seed};
    result = PyList_New((Py_ssize_t)count);
    if (result == NULL)
        goto done;
    int nrest = sampler.n - sampler.k;
    for (long long i = 0; i < count; i++) {
        uint8_t rest[NT];
        uint32_t opp = sampler_deal(&sampler, &rng, rest);
        PyObject *tiles = PyTuple_New(nrest);
        if (tiles == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        for (int j = 0; j < nrest; j++)
            PyTuple_SET_ITEM(tiles, j, PyLong_FromLong(rest[j]));
        PyObject *item = Py_BuildValue("(kN)", (unsigned long)opp, tiles);
        if (item == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, (Py_ssize_t)i, item);
    }
done:
    free(limits);
    return result;
}
