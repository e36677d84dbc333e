/*
 * The progress bar of long work, on stderr when stderr is a terminal, nothing otherwise.
 * The work done comes from the computation's counted budget (deterministic); the clock
 * serves only the "left" estimate, which is drawn on the terminal and never written into
 * any output.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

static double clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void ac_cli_progress_init(ac_cli_progress *p, const char *what, int quiet, FILE *stream)
{
    memset(p, 0, sizeof *p);
    p->fp = stream;
    p->what = what;
    p->on = !quiet && stream != NULL && isatty(fileno(stream));
    p->t0 = clock_now();
    p->last_draw = -1.0;
}

static void format_left(char *buf, size_t size, double s)
{
    if (!isfinite(s) || s < 0)
        snprintf(buf, size, "--");
    else if (s < 60)
        snprintf(buf, size, "%.0f s", s);
    else if (s < 3600)
        snprintf(buf, size, "%.0f min %02.0f s", floor(s / 60), fmod(s, 60));
    else
        snprintf(buf, size, "%.0f h %02.0f min", floor(s / 3600), fmod(s / 60, 60));
}

/* [#####.....]  42%  about 1 min 10 s left (left = elapsed x (1 - done) / done). */
void ac_cli_progress_update(void *ctx, double done)
{
    ac_cli_progress *p = ctx;
    char bar[31], left[32];
    double now, elapsed;
    size_t filled;
    if (p == NULL || !p->on)
        return;
    now = clock_now();
    if (done < p->done - 0.25) { /* a new piece of work (check: the next simulation) */
        p->part++;
        p->t0 = now;
    } else if (!(done >= p->done)) {
        done = p->done; /* never backwards */
    }
    if (done > 1.0)
        done = 1.0;
    p->done = done;
    if (p->last_draw >= 0 && now - p->last_draw < 0.2)
        return;
    p->last_draw = now;
    elapsed = now - p->t0;
    filled = (size_t)(done * 30.0);
    memset(bar, '#', filled);
    memset(bar + filled, '.', 30 - filled);
    bar[30] = '\0';
    if (done > 0.01 && elapsed > 1.0)
        format_left(left, sizeof left, elapsed * (1.0 - done) / done);
    else
        snprintf(left, sizeof left, "--");
    if (p->part > 0)
        fprintf(p->fp, "\r%s (part %zu) [%s] %3.0f%%  about %s left\033[K", p->what, p->part + 1,
                bar, 100.0 * done, left);
    else
        fprintf(p->fp, "\r%s [%s] %3.0f%%  about %s left\033[K", p->what, bar, 100.0 * done, left);
    fflush(p->fp);
    p->drawn = 1;
}

void ac_cli_progress_end(ac_cli_progress *p)
{
    if (p->on && p->drawn) {
        fputs("\r\033[K", p->fp);
        fflush(p->fp);
    }
    p->drawn = 0;
    p->done = 0.0;
    p->part = 0;
    p->last_draw = -1.0;
}

void ac_cli_progress_start(void *ctx, const char *what)
{
    ac_cli_progress *p = ctx;
    ac_cli_progress_end(p);
    p->what = what;
    p->t0 = clock_now();
    ac_cli_progress_update(p, 0.0);
}
