/* The Python binding of the native rules (dominolab.native._engine): the State type, the
 * benchmark loop over random hands and its record for the replay check, and the greedy hand.
 * The lab's greedy hands (greedy_hand_facts) play a dealt hand to its end in one call.
 * The search (search.c) registers its functions in the same module through SEARCH_METHODS.
 *
 * Everything that crosses from Python is checked here, so that no value, however wrong, can
 * make the rules read or write outside a State: a bad move is a ValueError, never a crash.
 * The rules themselves (rules.c) trust their input.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "engine.h"

#if __has_include("search.h")
#include "search.h"
#endif
#ifndef SEARCH_METHODS
#define SEARCH_METHODS
#endif

#define ALL_TILES ((1u << NT) - 1u)
/* a tree's ports must fit a move's code (port indices up to 49: the ports of tile numbers up
 * to 12), so a tree table takes at most 13 tiles: the 13th is laid on a port of the first 12 */
#define MAX_TREE_TILES 13

/* -- checks of values from Python ---------------------------------------------------------- */

/* 1 if code is a play that the table can take (a free port, or the lead on an empty table)
 * of a tile not on it; the rules may then be asked about it without reading out of bounds. */
static int play_fits_table(const State *s, int code) {
    if (code < 0 || !mv_is_play(code)) return 0;
    int t = mv_tile(code), inner = mv_inner(code), port = mv_port(code), luzak = mv_luzak(code);
    if (t >= NT || (inner != TILE_HI[t] && inner != TILE_LO[t])) return 0;
    if ((s->table >> t) & 1u) return 0;
    if (port < 0) return s->n == 0 && inner == TILE_HI[t] && !luzak;
    if (s->n == 0) return 0;
    if (s->flags & R_TREE) {
        if (s->n >= MAX_TREE_TILES) return 0;
        return port >= 2 && port < MAX_PORTS && s->port_value[port] >= 0;
    }
    return (port == 0 || port == 1) && s->n < NT;
}

static int is_legal(const State *s, int code, int *moves, int *count) {
    int m = st_legal(s, moves);
    if (count) *count = m;
    for (int i = 0; i < m; i++)
        if (moves[i] == code) return 1;
    return 0;
}

/* -- the State type ------------------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD
    State s;
} StateObject;

static PyTypeObject StateType;

static StateObject *state_new_from(const State *s) {
    StateObject *o = PyObject_New(StateObject, &StateType);
    if (o) o->s = *s;
    return o;
}

/* Check a deal's masks and rest and build the state; -1 with ValueError set if wrong. */
static int init_checked(State *s, long long flags, int tiles_per_hand, unsigned long long h0,
                        unsigned long long h1, const uint8_t *rest, Py_ssize_t nrest,
                        int opener) {
    if (flags < 0 || flags > 0xFFFF) {
        PyErr_Format(PyExc_ValueError, "flags must be R_* bits, not %lld", flags);
        return -1;
    }
    if (h0 > ALL_TILES || h1 > ALL_TILES || (h0 & h1)) {
        PyErr_SetString(PyExc_ValueError, "the hands must be disjoint masks of the 28 tiles");
        return -1;
    }
    if (opener != 0 && opener != 1) {
        PyErr_Format(PyExc_ValueError, "opener must be seat 0 or 1, not %d", opener);
        return -1;
    }
    if ((flags & R_TREE) && (flags & (R_QUARTETS | R_END_OUT))) {
        /* quartets are read at a line's two ends, and a tree must end after a number of
         * tiles that its ports can be named for */
        PyErr_SetString(PyExc_ValueError, "a tree table ends after tiles_per_hand tiles and "
                        "scores the count (no R_QUARTETS, no R_END_OUT with R_TREE)");
        return -1;
    }
    int most = (flags & R_TREE) ? MAX_TREE_TILES : NT;
    if (!(flags & R_END_OUT) ? (tiles_per_hand < 1 || tiles_per_hand > most)
                             : (tiles_per_hand < 0 || tiles_per_hand > NT)) {
        PyErr_Format(PyExc_ValueError, "tiles_per_hand %d is out of range for these rules",
                     tiles_per_hand);
        return -1;
    }
    uint32_t seen = (uint32_t)(h0 | h1);
    if (nrest > NT) {
        PyErr_SetString(PyExc_ValueError, "the rest holds more than 28 tiles");
        return -1;
    }
    for (Py_ssize_t i = 0; i < nrest; i++) {
        if (rest[i] >= NT || ((seen >> rest[i]) & 1u)) {
            PyErr_SetString(PyExc_ValueError,
                            "the rest must be tile indices 0..27, each once and in no hand");
            return -1;
        }
        seen |= 1u << rest[i];
    }
    st_init(s, (uint32_t)flags, tiles_per_hand, (uint32_t)h0, (uint32_t)h1, rest, (int)nrest,
            opener);
    return 0;
}

static PyObject *State_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"flags", "tiles_per_hand", "hand0", "hand1", "rest", "opener",
                             NULL};
    long long flags;
    int tph, opener;
    unsigned long long h0, h1;
    Py_buffer rest;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LiKKy*i", kwlist, &flags, &tph, &h0, &h1,
                                     &rest, &opener))
        return NULL;
    State s;
    int bad = init_checked(&s, flags, tph, h0, h1, rest.buf, rest.len, opener);
    PyBuffer_Release(&rest);
    if (bad) return NULL;
    StateObject *o = (StateObject *)type->tp_alloc(type, 0);
    if (o) o->s = s;
    return (PyObject *)o;
}

static PyObject *codes_list(const int *codes, int m) {
    PyObject *list = PyList_New(m);
    if (!list) return NULL;
    for (int i = 0; i < m; i++) {
        PyObject *v = PyLong_FromLong(codes[i]);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

static int code_arg(PyObject *arg, int *code) {
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v > MV_KEEP) {
        PyErr_Format(PyExc_ValueError, "%ld is not a move code", v);
        return -1;
    }
    *code = (int)v;
    return 0;
}

static PyObject *State_copy(StateObject *self, PyObject *Py_UNUSED(unused)) {
    return (PyObject *)state_new_from(&self->s);
}

static PyObject *State_legal(StateObject *self, PyObject *Py_UNUSED(unused)) {
    int moves[MV_MAX];
    int m = st_legal(&self->s, moves);
    return codes_list(moves, m);
}

static PyObject *State_apply(StateObject *self, PyObject *arg) {
    int code, moves[MV_MAX], pts[2];
    if (code_arg(arg, &code)) return NULL;
    if (!is_legal(&self->s, code, moves, NULL)) {
        PyErr_Format(PyExc_ValueError, "move %d is not legal here%s", code,
                     self->s.end ? " (the hand is over)" : "");
        return NULL;
    }
    st_apply(&self->s, code, pts);
    return Py_BuildValue("(ii)", pts[0], pts[1]);
}

static PyObject *State_points_of(StateObject *self, PyObject *arg) {
    int code, pts[2] = {0, 0};
    if (code_arg(arg, &code)) return NULL;
    if (mv_is_play(code)) {
        if (!play_fits_table(&self->s, code)) {
            PyErr_Format(PyExc_ValueError, "move %d cannot be laid on this table", code);
            return NULL;
        }
        st_points_of(&self->s, code, pts);
    }
    return Py_BuildValue("(ii)", pts[0], pts[1]);
}

static PyObject *State_place(StateObject *self, PyObject *arg) {
    int code;
    if (code_arg(arg, &code)) return NULL;
    if (!play_fits_table(&self->s, code)) {
        PyErr_Format(PyExc_ValueError, "move %d cannot be laid on this table", code);
        return NULL;
    }
    int t = mv_tile(code);
    if ((self->s.hand[0] | self->s.hand[1]) >> t & 1u) {
        PyErr_Format(PyExc_ValueError, "tile %d is in a hand; place() lays only table tiles", t);
        return NULL;
    }
    st_place(&self->s, code);
    Py_RETURN_NONE;
}

static PyObject *State_set_position(StateObject *self, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"to_move", "points0", "points1", "pending", "passes", NULL};
    int to_move, p0, p1, pending = -1, passes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iii|ii", kwlist, &to_move, &p0, &p1,
                                     &pending, &passes))
        return NULL;
    State *s = &self->s;
    if (to_move != 0 && to_move != 1) {
        PyErr_SetString(PyExc_ValueError, "to_move must be seat 0 or 1");
        return NULL;
    }
    if (pending != -1 && (pending < 0 || pending >= NT || !((s->hand[to_move] >> pending) & 1u)
                          || !(s->flags & R_BONEYARD))) {
        PyErr_SetString(PyExc_ValueError,
                        "pending must be -1 or a tile in the hand of the seat to move");
        return NULL;
    }
    if (passes < 0 || passes > 1) {
        PyErr_SetString(PyExc_ValueError, "passes must be 0 or 1 in a hand in progress");
        return NULL;
    }
    s->to_move = (int8_t)to_move;
    s->points[0] = p0;
    s->points[1] = p1;
    s->pending = (int8_t)pending;
    s->passes = (uint8_t)passes;
    Py_RETURN_NONE;
}

static PyObject *State_greedy(StateObject *self, PyObject *Py_UNUSED(unused)) {
    if (self->s.end) {
        PyErr_SetString(PyExc_ValueError, "the hand is over: there is nothing to choose");
        return NULL;
    }
    return PyLong_FromLong(st_greedy_choice(&self->s));
}

static PyObject *State_greedy_expected(StateObject *self, PyObject *arg) {
    if (self->s.end) {
        PyErr_SetString(PyExc_ValueError, "the hand is over: there is nothing to choose");
        return NULL;
    }
    unsigned long absent = PyLong_AsUnsignedLongMask(arg);
    if (absent == (unsigned long)-1 && PyErr_Occurred()) return NULL;
    return PyLong_FromLong(st_greedy_expected_choice(&self->s, (uint32_t)absent));
}

/* greedy_expected(absent) had the seat to move held `hand` (as many tiles as it holds now,
 * none on the table) and the opponent the first of the other tiles, as many as it holds
 * now (the greedy only counts them): the same choice a state built with those hands makes.
 * The state is not changed. For many hands the same table is built once (players/beliefs
 * GreedyModel weighs hundreds of worlds at each of the opponent's choices). */
static PyObject *State_greedy_expected_holding(StateObject *self, PyObject *args) {
    unsigned long hand, absent;
    if (!PyArg_ParseTuple(args, "kk", &hand, &absent)) return NULL;
    const State *s = &self->s;
    if (s->end) {
        PyErr_SetString(PyExc_ValueError, "the hand is over: there is nothing to choose");
        return NULL;
    }
    int seat = s->to_move, opp = 1 - seat;
    if (hand > ALL_TILES || (hand & s->table)
        || __builtin_popcountl(hand) != __builtin_popcount(s->hand[seat])) {
        PyErr_Format(PyExc_ValueError, "hand %lu must be %d tiles, none on the table", hand,
                     __builtin_popcount(s->hand[seat]));
        return NULL;
    }
    if (s->pending != -1) {
        PyErr_SetString(PyExc_ValueError, "a drawn tile is pending: the seat holds it");
        return NULL;
    }
    State c = *s;
    c.hand[seat] = (uint32_t)hand;
    uint32_t other = 0, free = ALL_TILES & ~((uint32_t)hand | s->table);
    for (int k = __builtin_popcount(s->hand[opp]); k > 0 && free; k--) {
        uint32_t low = free & -free;
        other |= low;
        free ^= low;
    }
    c.hand[opp] = other;
    return PyLong_FromLong(st_greedy_expected_choice(&c, (uint32_t)absent));
}

static PyObject *State_greedy_playout(StateObject *self, PyObject *arg) {
    int32_t need[2];
    const int32_t *needp = NULL;
    if (arg != Py_None) {
        int a, b;
        if (!PyArg_ParseTuple(arg, "ii", &a, &b)) return NULL;
        need[0] = a;
        need[1] = b;
        needp = need;
    }
    return PyBool_FromLong(st_greedy_playout(&self->s, needp));
}

static PyMethodDef State_methods[] = {
    {"copy", (PyCFunction)State_copy, METH_NOARGS, "An independent copy."},
    {"legal", (PyCFunction)State_legal, METH_NOARGS,
     "The legal moves' codes, in the reference's order (Hand.legal_moves)."},
    {"apply", (PyCFunction)State_apply, METH_O,
     "Apply a legal move; return the points it gave (p0, p1), the end bonus not included. "
     "ValueError if the code is not legal here."},
    {"points_of", (PyCFunction)State_points_of, METH_O,
     "The points a play would give now (Hand.points_of), without applying it."},
    {"place", (PyCFunction)State_place, METH_O,
     "Lay a play on the table only (no hand, no points, no turn): rebuilding a table."},
    {"set_position", (PyCFunction)(void (*)(void))State_set_position,
     METH_VARARGS | METH_KEYWORDS,
     "set_position(to_move, points0, points1, pending=-1, passes=0): a hand in progress."},
    {"greedy", (PyCFunction)State_greedy, METH_NOARGS,
     "The greedy player's choice for the seat to move (players.greedy.GreedyPlayer)."},
    {"greedy_expected", (PyCFunction)State_greedy_expected, METH_O,
     "greedy_expected(absent): the expected-answer greedy's choice for the seat to move "
     "(players.greedy.GreedyPlayer), absent the mask of tiles the opponent is proven not "
     "to hold. greedy() is the worst-case greedy (players.greedy.WorstCaseGreedyPlayer)."},
    {"greedy_expected_holding", (PyCFunction)State_greedy_expected_holding, METH_VARARGS,
     "greedy_expected_holding(hand, absent): greedy_expected(absent) had the seat to move "
     "held the tile mask hand (as many tiles as it holds; the opponent, the lowest other "
     "tiles, as many as it holds). The state is not changed."},
    {"greedy_playout", (PyCFunction)State_greedy_playout, METH_O,
     "greedy_playout(need): players.search.greedy_playout on this state; True if stopped by "
     "need (a (p0, p1) tuple, or None)."},
    {NULL, NULL, 0, NULL},
};

#define GETTER(name, expr)                                                                \
    static PyObject *State_get_##name(StateObject *self, void *Py_UNUSED(closure)) { return expr; }
GETTER(to_move, PyLong_FromLong(self->s.to_move))
GETTER(opener, PyLong_FromLong(self->s.opener))
GETTER(flags, PyLong_FromUnsignedLong(self->s.flags))
GETTER(tiles_per_hand, PyLong_FromLong(self->s.tiles_per_hand))
GETTER(points, Py_BuildValue("(ii)", (int)self->s.points[0], (int)self->s.points[1]))
GETTER(n, PyLong_FromLong(self->s.n))
GETTER(count, PyLong_FromLong(self->s.count))
GETTER(end, PyLong_FromLong(self->s.end))
GETTER(winner, PyLong_FromLong(self->s.winner))
GETTER(bonus, PyLong_FromLong(self->s.bonus))
GETTER(hands, Py_BuildValue("(kk)", (unsigned long)self->s.hand[0],
                            (unsigned long)self->s.hand[1]))
GETTER(boneyard, PyBytes_FromStringAndSize((const char *)self->s.bone + self->s.bone_next,
                                           self->s.bone_end - self->s.bone_next))
GETTER(pending, PyLong_FromLong(self->s.pending))
GETTER(passes, PyLong_FromLong(self->s.passes))
GETTER(over, PyBool_FromLong(self->s.end != END_NONE))
GETTER(table, PyBytes_FromStringAndSize((const char *)self->s.placed, self->s.n))
GETTER(ends, (self->s.flags & R_TREE)
                 ? Py_BuildValue("(ii)", -1, -1)
                 : Py_BuildValue("(ii)", (int)self->s.end_tile[0], (int)self->s.end_tile[1]))

#define GET(name, doc) {#name, (getter)State_get_##name, NULL, doc, NULL}
static PyGetSetDef State_getset[] = {
    GET(to_move, "The seat to move (after a domino, the seat that went out)."),
    GET(opener, "The seat that opened the hand."),
    GET(flags, "The rules, as R_* flags."),
    GET(tiles_per_hand, "Tiles on the table that end the hand (0: it ends when a seat goes out)."),
    GET(points, "Each seat's points in this hand, the bonus included."),
    GET(n, "Tiles on the table."),
    GET(count, "The table count (count games; 0 in quartet games)."),
    GET(end, "How the hand ended: 0 not yet, 1 tiles, 2 domino, 3 block."),
    GET(winner, "The hand's winner, -1 for none (or not yet)."),
    GET(bonus, "The out bonus scored at the end."),
    GET(hands, "Each seat's tiles as a mask (bit t: tile index t)."),
    GET(boneyard, "The boneyard's tile indices, next draw first."),
    GET(pending, "A drawn tile that fits, to be laid (or kept); -1 for none."),
    GET(passes, "Passes in a row."),
    GET(over, "True once the hand has ended."),
    GET(table, "The tile indices on the table, in the order they were laid."),
    GET(ends, "A line's end tiles (L, R), -1 before the lead and on a tree."),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "dominolab.native._engine.State",
    .tp_basicsize = sizeof(StateObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "State(flags, tiles_per_hand, hand0, hand1, rest, opener): one hand of a game "
              "under rules given as R_* flags; hands as tile masks, rest as tile indices "
              "(the boneyard, next draw first).",
    .tp_new = State_new,
    .tp_methods = State_methods,
    .tp_getset = State_getset,
};

/* -- random hands: the benchmark loop and its record --------------------------------------- */

typedef struct {
    uint32_t flags;
    int tiles_per_hand, hand_size;
} Rules;

static int rules_args(PyObject *args, Rules *r, Py_ssize_t *count, unsigned long long *seed) {
    long long flags;
    if (!PyArg_ParseTuple(args, "LiinK", &flags, &r->tiles_per_hand, &r->hand_size, count,
                          seed))
        return -1;
    if (r->hand_size < 1 || 2 * r->hand_size > NT) {
        PyErr_Format(PyExc_ValueError, "hand_size must be 1..14, not %d", r->hand_size);
        return -1;
    }
    if (*count < 0) {
        PyErr_SetString(PyExc_ValueError, "count must not be negative");
        return -1;
    }
    State probe;
    uint8_t none[1] = {0};
    if (init_checked(&probe, flags, r->tiles_per_hand, 0, 0, none, 0, 0)) return -1;
    if (!(flags & R_END_OUT) && 2 * r->hand_size < r->tiles_per_hand) {
        PyErr_SetString(PyExc_ValueError, "the hands hold fewer tiles than a hand lays");
        return -1;
    }
    r->flags = (uint32_t)flags;
    return 0;
}

/* Deal hand number h (opener h & 1) from the generator: a Fisher-Yates shuffle of the 28
 * tiles, the first hand_size to seat 0, the next to seat 1, the rest in order. */
static void deal_hand(State *s, const Rules *r, Rng *rng, Py_ssize_t h) {
    uint8_t deck[NT];
    for (int i = 0; i < NT; i++) deck[i] = (uint8_t)i;
    for (int i = NT - 1; i > 0; i--) {
        int j = rng_below(rng, i + 1);
        uint8_t t = deck[i];
        deck[i] = deck[j];
        deck[j] = t;
    }
    uint32_t h0 = 0, h1 = 0;
    for (int i = 0; i < r->hand_size; i++) {
        h0 |= 1u << deck[i];
        h1 |= 1u << deck[r->hand_size + i];
    }
    st_init(s, r->flags, r->tiles_per_hand, h0, h1, deck + 2 * r->hand_size,
            NT - 2 * r->hand_size, (int)(h & 1));
}

/* Play the hand to its end by uniform random choice. With codes, the moves are recorded and
 * each is also picked from the listed legal moves, which must agree with the fast pick
 * (st_random_move): *disagree counts the moves where they did not. */
static int play_random(State *s, Rng *rng, int *codes, int most, int *disagree) {
    int moves[MV_MAX], played = 0;
    while (!s->end) {
        int code;
        if (codes) {
            Rng fast_rng = *rng;
            int fast = st_random_move(s, &fast_rng);
            int m = st_legal(s, moves);
            if (m == 0) break;
            code = moves[m == 1 ? 0 : rng_below(rng, m)];
            if (fast != code || fast_rng.s != rng->s) ++*disagree;
            if (played < most) codes[played] = code;
        } else {
            code = st_random_move(s, rng);
            if (code < 0) break;
        }
        st_apply(s, code, NULL);
        played++;
    }
    return played;
}

static PyObject *random_hands(PyObject *Py_UNUSED(mod), PyObject *args) {
    Rules r;
    Py_ssize_t count;
    unsigned long long seed;
    if (rules_args(args, &r, &count, &seed)) return NULL;
    long long moves = 0;
    Py_BEGIN_ALLOW_THREADS
    Rng rng = {seed};
    State s;
    for (Py_ssize_t h = 0; h < count; h++) {
        deal_hand(&s, &r, &rng, h);
        moves += play_random(&s, &rng, NULL, 0, NULL);
    }
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(nL)", count, moves);
}

/* a hand is at most 28 plays, 14 draws, 14 keeps and 2 passes */
#define MOST_MOVES 64

static PyObject *random_hand_records(PyObject *Py_UNUSED(mod), PyObject *args) {
    Rules r;
    Py_ssize_t count;
    unsigned long long seed;
    if (rules_args(args, &r, &count, &seed)) return NULL;
    PyObject *out = PyList_New(count);
    if (!out) return NULL;
    Rng rng = {seed};
    State s;
    int codes[MOST_MOVES], disagree = 0;
    for (Py_ssize_t h = 0; h < count; h++) {
        deal_hand(&s, &r, &rng, h);
        uint32_t h0 = s.hand[0], h1 = s.hand[1];
        PyObject *rest = PyBytes_FromStringAndSize((const char *)s.bone, s.bone_end);
        int played = play_random(&s, &rng, codes, MOST_MOVES, &disagree);
        PyObject *list = codes_list(codes, played < MOST_MOVES ? played : MOST_MOVES);
        PyObject *rec = NULL;
        if (rest && list)
            rec = Py_BuildValue("(kkOiO(ii)iii)", (unsigned long)h0, (unsigned long)h1, rest,
                                (int)(h & 1), list, (int)s.points[0], (int)s.points[1],
                                (int)s.end, (int)s.winner, (int)s.bonus);
        Py_XDECREF(rest);
        Py_XDECREF(list);
        if (!rec) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, h, rec);
    }
    if (disagree) {
        Py_DECREF(out);
        PyErr_Format(PyExc_RuntimeError, "the fast random pick differs from the legal moves "
                     "at %d moves", disagree);
        return NULL;
    }
    return out;
}

/* greedy_hand(state, expected=False, absent0=0, absent1=0, drew_seat=-1, drew_vals=0):
 * the worst-case greedy on both seats, or with expected the expected-answer greedy, whose
 * proven facts start from the absent masks and the seat (if any) that has drawn a fitting
 * tile with the values open before that draw. */
/* Play s to its end (or, with need, until a seat's points in the hand reach its need) with
 * the greedy player on both seats: the expected-answer one (expected, keeping up what each
 * seat's moves prove in pf) or the worst-case one. Each move's code, seat, tile number after
 * it and points go to the arrays; returns how many moves were played. */
static int play_greedy(State *s, Proof *pf, int expected, const int32_t *need, int *codes,
                       int *seats, int *ns, int (*pts)[2]) {
    int played = 0;
    while (!s->end && played < MOST_MOVES) {
        int code = expected ? st_greedy_expected_choice(s, pf->absent[1 - s->to_move])
                            : st_greedy_choice(s);
        if (code < 0) break;
        seats[played] = s->to_move;
        if (expected) st_apply_proving(s, code, pts[played], pf);
        else st_apply(s, code, pts[played]);
        codes[played] = code;
        ns[played++] = s->n;
        if (need && (s->points[0] >= need[0] || s->points[1] >= need[1])) break;
    }
    return played;
}

static PyObject *greedy_hand(PyObject *Py_UNUSED(mod), PyObject *args) {
    PyObject *arg;
    int expected = 0, drew_seat = -1;
    unsigned int a0 = 0, a1 = 0, drew_vals = 0;
    if (!PyArg_ParseTuple(args, "O!|pIIiI:greedy_hand", &StateType, &arg, &expected, &a0,
                          &a1, &drew_seat, &drew_vals))
        return NULL;
    State *s = &((StateObject *)arg)->s;
    Proof pf;
    proof_init(&pf);
    pf.absent[0] = a0;
    pf.absent[1] = a1;
    if (drew_seat == 0 || drew_seat == 1) {
        pf.drew_fit[drew_seat] = 1;
        pf.drew_vals[drew_seat] = (uint8_t)(drew_vals & 127u);
    }
    int codes[MOST_MOVES], seats[MOST_MOVES], ns[MOST_MOVES], pts[MOST_MOVES][2];
    int played = play_greedy(s, &pf, expected, NULL, codes, seats, ns, pts);
    return codes_list(codes, played);
}

/* A mask's tiles as their indices, in index order (the order of the set). */
static PyObject *mask_tiles(uint32_t mask) {
    uint8_t out[NT];
    int k = 0;
    for (; mask; mask &= mask - 1) out[k++] = (uint8_t)__builtin_ctz(mask);
    return PyBytes_FromStringAndSize((const char *)out, k);
}

/* One step of a hand as (seat, move, n, (p0, p1)); zero is the shared (0, 0). */
static PyObject *step_tuple(int seat, PyObject *move, int n, const int pts[2], PyObject *zero) {
    PyObject *points;
    if (pts[0] == 0 && pts[1] == 0) {
        Py_INCREF(zero);
        points = zero;
    } else {
        points = Py_BuildValue("(ii)", pts[0], pts[1]);
        if (!points) return NULL;
    }
    PyObject *step = PyTuple_New(4);
    if (!step) {
        Py_DECREF(points);
        return NULL;
    }
    Py_INCREF(move);
    PyTuple_SET_ITEM(step, 0, PyLong_FromLong(seat));
    PyTuple_SET_ITEM(step, 1, move);
    PyTuple_SET_ITEM(step, 2, PyLong_FromLong(n));
    PyTuple_SET_ITEM(step, 3, points);
    if (!PyTuple_GET_ITEM(step, 0) || !PyTuple_GET_ITEM(step, 2)) {
        Py_DECREF(step);
        return NULL;
    }
    return step;
}

/* A whole hand dealt from Python, played greedily on both seats (the moves of greedy_hand),
 * with the facts a simulation file's hand line is made of: for each move its seat, its
 * value (moves[code]: the caller's table of move values by code), the tiles on the table
 * after it and the points it gave; then how the hand ended. With need (p0, p1) it stops
 * after the move that brings a seat's points in the hand to need[seat] (the match is won
 * at once): the hand is then not over (end 0) unless that move ended it. */
static PyObject *greedy_hand_facts(PyObject *Py_UNUSED(mod), PyObject *args) {
    long long flags;
    int tph, opener;
    unsigned long long h0, h1;
    Py_buffer rest;
    PyObject *need_arg, *moves;
    int expected = 0;
    if (!PyArg_ParseTuple(args, "LiKKy*iOO!|p", &flags, &tph, &h0, &h1, &rest, &opener,
                          &need_arg, &PyList_Type, &moves, &expected))
        return NULL;
    State s;
    int bad = init_checked(&s, flags, tph, h0, h1, rest.buf, rest.len, opener);
    PyBuffer_Release(&rest);
    if (bad) return NULL;
    int32_t need[2];
    const int32_t *needp = NULL;
    if (need_arg != Py_None) {
        int a, b;
        if (!PyTuple_Check(need_arg)) {
            PyErr_SetString(PyExc_TypeError, "need must be None or (p0, p1)");
            return NULL;
        }
        if (!PyArg_ParseTuple(need_arg, "ii;need must be None or (p0, p1)", &a, &b))
            return NULL;
        need[0] = a;
        need[1] = b;
        needp = need;
    }
    if (PyList_GET_SIZE(moves) <= MV_KEEP) {
        PyErr_SetString(PyExc_ValueError, "moves must hold a value for every move code");
        return NULL;
    }
    int codes[MOST_MOVES], seats[MOST_MOVES], ns[MOST_MOVES], pts[MOST_MOVES][2];
    Proof pf;
    proof_init(&pf);
    int played = play_greedy(&s, &pf, expected, needp, codes, seats, ns, pts);
    if (!s.end && !(needp && (s.points[0] >= need[0] || s.points[1] >= need[1]))) {
        PyErr_Format(PyExc_RuntimeError, "the greedy hand stopped after %d moves without an "
                     "end", played);
        return NULL;
    }
    PyObject *zero = Py_BuildValue("(ii)", 0, 0);
    PyObject *steps = zero ? PyList_New(played) : NULL;
    if (!steps) {
        Py_XDECREF(zero);
        return NULL;
    }
    for (int i = 0; i < played; i++) {
        PyObject *move = PyList_GET_ITEM(moves, codes[i]);
        PyObject *step = step_tuple(seats[i], move, ns[i], pts[i], zero);
        if (!step) {
            Py_DECREF(steps);
            Py_DECREF(zero);
            return NULL;
        }
        PyList_SET_ITEM(steps, i, step);
    }
    Py_DECREF(zero);
    PyObject *left0 = mask_tiles(s.hand[0]), *left1 = mask_tiles(s.hand[1]);
    PyObject *out = NULL;
    if (left0 && left1)
        out = Py_BuildValue("(Oii(ii)iOO)", steps, (int)s.end, (int)s.winner,
                            (int)s.points[0], (int)s.points[1], (int)s.bonus, left0, left1);
    Py_DECREF(steps);
    Py_XDECREF(left0);
    Py_XDECREF(left1);
    return out;
}

static PyObject *best_quartets(PyObject *Py_UNUSED(mod), PyObject *args) {
    unsigned long long tiles;
    int edge;
    if (!PyArg_ParseTuple(args, "Kp", &tiles, &edge)) return NULL;
    if (tiles > ALL_TILES) {
        PyErr_SetString(PyExc_ValueError, "tiles must be a mask of the 28 tiles");
        return NULL;
    }
    return PyLong_FromLong(best_quartets_worth((uint32_t)tiles, edge));
}

static PyObject *setup(PyObject *Py_UNUSED(mod), PyObject *arg) {
    Py_buffer worth;
    if (PyObject_GetBuffer(arg, &worth, PyBUF_SIMPLE)) return NULL;
    if (worth.len != (Py_ssize_t)sizeof QW) {
        PyBuffer_Release(&worth);
        PyErr_Format(PyExc_ValueError, "the quartet worths are %d bytes, not %zd",
                     (int)sizeof QW, worth.len);
        return NULL;
    }
    rules_setup((const uint8_t *)worth.buf);
    PyBuffer_Release(&worth);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_O,
     "setup(worth): the quartet worths QUARTET_WORTH[edge_double][a][b] as 2*28*28 bytes."},
    {"random_hands", random_hands, METH_VARARGS,
     "random_hands(flags, tiles_per_hand, hand_size, count, seed) -> (hands, moves): deal "
     "and play count hands by uniform random choice (the benchmark loop)."},
    {"random_hand_records", random_hand_records, METH_VARARGS,
     "random_hand_records(flags, tiles_per_hand, hand_size, count, seed): the same hands as "
     "random_hands, each as (hand0, hand1, rest, opener, codes, points, end, winner, bonus)."},
    {"greedy_hand", greedy_hand, METH_VARARGS,
     "greedy_hand(state, expected=False, absent0=0, absent1=0, drew_seat=-1, drew_vals=0) -> "
     "codes: play the state's hand to its end, greedy for both seats (the worst-case greedy, "
     "or with expected the expected-answer greedy from these proven facts)."},
    {"greedy_hand_facts", greedy_hand_facts, METH_VARARGS,
     "greedy_hand_facts(flags, tiles_per_hand, hand0, hand1, rest, opener, need, moves) -> "
     "(steps, end, winner, points, bonus, left0, left1): deal a hand and play it greedily on "
     "both seats; steps as (seat, moves[code], n, (p0, p1)); stop once a seat's points reach "
     "need[seat] (need: (p0, p1) or None); the tiles left as index bytes."},
    {"best_quartets_worth", best_quartets, METH_VARARGS,
     "best_quartets_worth(tiles, edge_double): the best quartets' worth of a tile mask."},
    SEARCH_METHODS
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_engine",
    "The native fast path of dominolab's rules (see dominolab.native).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__engine(void) {
    if (PyType_Ready(&StateType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&StateType);
    if (PyModule_AddObject(m, "State", (PyObject *)&StateType) < 0) {
        Py_DECREF(&StateType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
