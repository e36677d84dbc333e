/*
 * The simulator's event heap (internal to sim/; included by sim/internal.h): inline, so
 * that scheduling costs no call from the node kinds' files.
 */
#ifndef AC_SIM_HEAP_H
#define AC_SIM_HEAP_H

/*
 * A 4-ary min-heap (children of i: 4i + 1 .. 4i + 4): half the depth of a binary heap, and
 * the four children of a node share a cache line or two. The event that fires leaves a
 * HOLE at the root (s->hole) instead of being popped: the first event scheduled while the
 * hole is open (most often the same entity's next one: a server's next completion, a
 * source's next arrival) goes into the hole and sifts down once (replace-top), instead of a
 * pop (sift-down) and a push (sift-up). Any other heap operation fills the hole first with
 * the last item, as a pop would, and so does the event loop after the handler.
 */
#ifndef AC_SIM_HEAP_D
#define AC_SIM_HEAP_D 4
#endif

static inline void ac_sim_heap_place(ac_sim_state *s, size_t i, ac_sim_heap_item it)
{
    s->heap[i] = it;
    s->ev[it.ev].pos = (uint32_t)i;
}

static inline void ac_sim_heap_sift_up(ac_sim_state *s, size_t i)
{
    ac_sim_heap_item it = s->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / AC_SIM_HEAP_D;
        if (s->heap[p].t <= it.t)
            break;
        ac_sim_heap_place(s, i, s->heap[p]);
        i = p;
    }
    ac_sim_heap_place(s, i, it);
}

static inline void ac_sim_heap_sift_down(ac_sim_state *s, size_t i, ac_sim_heap_item it)
{
    const ac_sim_heap_item *h = s->heap;
    size_t n = s->nheap;
    for (;;) {
        size_t c = AC_SIM_HEAP_D * i + 1, best = c;
        if (AC_SIM_HEAP_D == 4 && c + AC_SIM_HEAP_D <= n) {
            size_t a = h[c + 1].t < h[c].t ? c + 1 : c;
            size_t b = h[c + 3].t < h[c + 2].t ? c + 3 : c + 2;
            best = h[b].t < h[a].t ? b : a;
        } else {
            if (c >= n)
                break;
            for (size_t k = c + 1; k < n && k < c + AC_SIM_HEAP_D; k++)
                if (h[k].t < h[best].t)
                    best = k;
        }
        if (h[best].t >= it.t)
            break;
        ac_sim_heap_place(s, i, h[best]);
        i = best;
    }
    ac_sim_heap_place(s, i, it);
}

/* Close the hole at the root with the last item (a pop). */
static inline void ac_sim_heap_fill_hole(ac_sim_state *s)
{
    s->hole = 0;
    s->nheap--;
    if (s->nheap > 0)
        ac_sim_heap_sift_down(s, 0, s->heap[s->nheap]);
}

/* (Re)schedule event e at time t. */
static inline void ac_sim_event_schedule(ac_sim_state *s, uint32_t e, double t)
{
    uint32_t pos = s->ev[e].pos;
    if (pos == AC_SIM_NIL) {
        ac_sim_heap_item it = {t, e};
        if (s->hole) { /* replace-top */
            s->hole = 0;
            ac_sim_heap_sift_down(s, 0, it);
            return;
        }
        s->heap[s->nheap++] = it;
        ac_sim_heap_sift_up(s, s->nheap - 1);
        return;
    }
    if (s->hole) {
        ac_sim_heap_fill_hole(s);
        pos = s->ev[e].pos;
    }
    {
        double old = s->heap[pos].t;
        s->heap[pos].t = t;
        if (t < old)
            ac_sim_heap_sift_up(s, pos);
        else
            ac_sim_heap_sift_down(s, pos, s->heap[pos]);
    }
}

#endif
