/*
 * The simulator's event heap (internal to sim/; included by sim/internal.h): inline, so
 * that scheduling costs no call from the node kinds' files.
 *
 * A 4-ary min-heap (children of i: 4i + 1 .. 4i + 4): half the depth of a binary heap. Its
 * keys (times) and its event indices are two arrays, so that the four children's keys are
 * 32 contiguous bytes and a level costs three comparisons of doubles addressed directly.
 * The event that fires leaves a HOLE at the root (s->hole) instead of being popped: the
 * first event scheduled while the hole is open (most often the same entity's next one: a
 * server's next completion, a source's next arrival) goes into the hole and sifts down once
 * (replace-top), instead of a pop (sift-down) and a push (sift-up). Any other heap
 * operation fills the hole first with the last item, as a pop would, and so does the event
 * loop after the handler. Ties: a child replaces its parent only when strictly earlier, the
 * first of equal children wins (deterministic; no order among equal times is promised).
 * Measured (callgrind, bench/sim_ref.c's pool: power-of-2, N = 100, rho 0.9): 539
 * instructions per event with a binary heap, 484 with this 4-ary one, 611 with an 8-ary one
 * (items of (time, event) then); 454 with the keys apart.
 */
#ifndef AC_SIM_HEAP_H
#define AC_SIM_HEAP_H

#define AC_SIM_HEAP_D 4

/* Scheduling is inlined at every call (GCC and Clang would otherwise keep one out-of-line
 * copy per file for its size: a call, its prologue and epilogue, ~15 instructions each). */
#if defined(__GNUC__)
#define AC_SIM_HEAP_INLINE static inline __attribute__((always_inline))
#else
#define AC_SIM_HEAP_INLINE static inline
#endif

static inline void ac_sim_heap_place(ac_sim_state *s, size_t i, double t, uint32_t e)
{
    s->hkey[i] = t;
    s->hev[i] = e;
    s->ev[e].pos = (uint32_t)i;
}

/* The item at i moves up while its parent is later. */
static inline void ac_sim_heap_sift_up(ac_sim_state *s, size_t i)
{
    double *key = s->hkey;
    uint32_t *hev = s->hev;
    double t = key[i];
    uint32_t e = hev[i];
    while (i > 0) {
        size_t p = (i - 1) / AC_SIM_HEAP_D;
        if (key[p] <= t)
            break;
        key[i] = key[p];
        hev[i] = hev[p];
        s->ev[hev[i]].pos = (uint32_t)i;
        i = p;
    }
    ac_sim_heap_place(s, i, t, e);
}

/* The earliest child of slot i in a heap of n keys: its slot in *best and its key; 0 when i
 * has no child (*best untouched). The first of equal keys wins, as the sift-downs need. */
static inline int ac_sim_heap_min_child(const double *key, size_t n, size_t i, size_t *best,
                                        double *kb)
{
    size_t c = AC_SIM_HEAP_D * i + 1;
    if (c + AC_SIM_HEAP_D <= n) {
        const double *k = key + c;
        size_t a = k[1] < k[0] ? 1 : 0, b = k[3] < k[2] ? 3 : 2;
        double ka = k[a], kk = k[b];
        *best = kk < ka ? c + b : c + a;
        *kb = kk < ka ? kk : ka;
        return 1;
    }
    if (c >= n)
        return 0;
    *best = c;
    *kb = key[c];
    for (size_t j = c + 1; j < n; j++)
        if (key[j] < *kb) {
            *best = j;
            *kb = key[j];
        }
    return 1;
}

/* Item (t, e) goes into the hole at i and moves down while a child is earlier. */
static inline void ac_sim_heap_sift_down(ac_sim_state *s, size_t i, double t, uint32_t e)
{
    double *key = s->hkey;
    uint32_t *hev = s->hev;
    ac_sim_event *ev = s->ev;
    size_t n = s->nheap;
    for (;;) {
        size_t best;
        double kb;
        if (!ac_sim_heap_min_child(key, n, i, &best, &kb) || kb >= t)
            break;
        key[i] = kb;
        hev[i] = hev[best];
        ev[hev[i]].pos = (uint32_t)i;
        i = best;
    }
    ac_sim_heap_place(s, i, t, e);
}

/* Close the hole at the root with the last item (a pop). */
static inline void ac_sim_heap_fill_hole(ac_sim_state *s)
{
    s->hole = 0;
    s->nheap--;
    if (s->nheap > 0)
        ac_sim_heap_sift_down(s, 0, s->hkey[s->nheap], s->hev[s->nheap]);
}

/* (Re)schedule event e at time t. */
AC_SIM_HEAP_INLINE void ac_sim_event_schedule(ac_sim_state *s, uint32_t e, double t)
{
    uint32_t pos = s->ev[e].pos;
    if (pos == AC_SIM_NIL) {
        if (s->hole) { /* replace-top */
            s->hole = 0;
            ac_sim_heap_sift_down(s, 0, t, e);
            return;
        }
        s->hkey[s->nheap] = t;
        s->hev[s->nheap] = e;
        s->nheap++;
        ac_sim_heap_sift_up(s, s->nheap - 1);
        return;
    }
    if (s->hole) {
        ac_sim_heap_fill_hole(s);
        pos = s->ev[e].pos;
    }
    {
        double old = s->hkey[pos];
        s->hkey[pos] = t;
        if (t < old)
            ac_sim_heap_sift_up(s, pos);
        else
            ac_sim_heap_sift_down(s, pos, t, e);
    }
}

#endif
