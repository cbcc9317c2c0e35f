/* The native search: the two searches of dominolab.players.search (PIMC and single-observer
 * ISMCTS) over the rules of engine.h, callable from Python with plain values.
 *
 * The Python search stays the readable reference; this is the same algorithm step for
 * step (one sampled world, tree descent by UCB with "seen" counts, one expansion, a greedy
 * playout, the match value backed up), with its randomness from the native Rng so that a
 * search with a fixed number of iterations repeats exactly for a given seed.
 *
 * module.c includes this header and puts SEARCH_METHODS into the module's method table.
 */
#ifndef DOMINOLAB_SEARCH_H
#define DOMINOLAB_SEARCH_H

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>

/* search(rules, position, limits, value, budget, kind, seed, world=None)
 *     -> [(code, count, value_sum, margin_sum), ...] for each root legal move in legal order.
 * sample_worlds(unseen, opponent_tiles, limits, count, seed)
 *     -> [(opponent_mask, rest), ...]: the world sampler alone, for tests.
 * The arguments are documented in search.c (and in dominolab/native/search.py). */
PyObject *dl_search(PyObject *self, PyObject *args, PyObject *kwargs);
PyObject *dl_sample_worlds(PyObject *self, PyObject *args, PyObject *kwargs);
extern const char dl_search_doc[];
extern const char dl_sample_worlds_doc[];

#define SEARCH_METHODS                                                                    \
    {"search", (PyCFunction)(void (*)(void))dl_search, METH_VARARGS | METH_KEYWORDS,      \
     dl_search_doc},                                                                      \
    {"sample_worlds", (PyCFunction)(void (*)(void))dl_sample_worlds,                      \
     METH_VARARGS | METH_KEYWORDS, dl_sample_worlds_doc},

#endif
