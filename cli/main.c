/*
 * archcheck: the entry point. Dispatches to one command per file of cli/.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"

static const char usage[] =
    "usage: archcheck COMMAND [OPTIONS] FILE...\n"
    "\n"
    "Review the design of a distributed system described in an architecture file\n"
    "(XML, see `archcheck schema`) before it is built.\n"
    "\n"
    "commands:\n"
    "  check    FILE...  validate, solve and judge every requirement: PASS, FAIL or INCONCLUSIVE\n"
    "  lint     FILE...  parse and validate only\n"
    "  solve    FILE     the steady state of every node: equilibria, stability, KPIs, latency\n"
    "  simulate FILE     discrete-event simulation: every KPI with its 95% confidence interval\n"
    "  compare  FILE [FILE2]  the baseline and every mitigation (or two files) side by side\n"
    "  search   FILE     the worst case of the <faults> space: a genetic search on the transient\n"
    "  size     FILE     the smallest servers/concurrency/consumers meeting the requirements\n"
    "  tune     FILE     the autoscaler settings of least cost that meet the requirements\n"
    "  rules             list every rule: id, severity, description\n"
    "  schema            print the XSD of the input format\n"
    "\n"
    "options:\n"
    "  -h, --help        this help (`archcheck COMMAND --help` for a command's options)\n"
    "  -V, --version     print the version\n"
    "\n"
    "exit status: 0 pass, 1 fail, 2 invalid input or command line, 3 inconclusive\n";

static int dispatch(int argc, char **argv);

/* Every command ends here: what could not be written to the standard streams (a full disk,
 * /dev/full, a closed descriptor) is an error, exit 2, said on stderr (if stderr itself
 * failed there is no one to tell, but the status still says it). */
static int finish(int status)
{
    int failed = fflush(stdout) != 0;
    int e = errno;
    if (failed || ferror(stdout)) {
        fprintf(stderr, "archcheck: cannot write the standard output: %s\n",
                failed && e != 0 ? strerror(e) : "a write to it failed");
        fflush(stderr);
        return AC_EXIT_USAGE;
    }
    if (fflush(stderr) != 0 || ferror(stderr))
        return AC_EXIT_USAGE;
    return status;
}

int main(int argc, char **argv)
{
    errno = 0;
    return finish(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    const char *cmd;
    gsl_set_error_handler_off();
    if (argc < 2) {
        fputs(usage, stderr);
        return AC_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return AC_EXIT_PASS;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("archcheck %s\n", AC_VERSION);
        return AC_EXIT_PASS;
    }
    if (strcmp(cmd, "lint") == 0)
        return ac_cli_lint(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return ac_cli_check(argc - 1, argv + 1);
    if (strcmp(cmd, "solve") == 0)
        return ac_cli_solve(argc - 1, argv + 1);
    if (strcmp(cmd, "simulate") == 0)
        return ac_cli_simulate(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return ac_cli_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "search") == 0)
        return ac_cli_search(argc - 1, argv + 1);
    if (strcmp(cmd, "size") == 0)
        return ac_cli_size(argc - 1, argv + 1);
    if (strcmp(cmd, "tune") == 0)
        return ac_cli_tune(argc - 1, argv + 1);
    if (strcmp(cmd, "rules") == 0)
        return ac_cli_rules(argc - 1, argv + 1);
    if (strcmp(cmd, "schema") == 0)
        return ac_cli_schema(argc - 1, argv + 1);
    fprintf(stderr, "archcheck: unknown command '%s'\n\n%s", cmd, usage);
    return AC_EXIT_USAGE;
}
