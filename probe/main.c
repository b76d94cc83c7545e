/* probe: prove, now, that this machine enforces corral's boundary. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "above.h"
#include "judge.h"
#include "fdio.h"
#include "msg.h"
#include "probe.h"
#include "report.h"
#include "sandbox.h"
#include "version.h"

#define USAGE "probe [-q | -v | -j] [-r TIER]"

enum { TIMEOUT_MS = 5000 };

struct opts {
	enum probe_format fmt;
	int quiet, nfmt;
	enum probe_tier required;
};

static void
help(void)
{
	printf("usage: " USAGE "\n"
	    "Prove that this machine enforces corral's boundary: real children\n"
	    "apply confine's sandbox and must be denied what was not granted.\n"
	    "Prints platform=linux tier=TIER (none, fs, fs+net, full).\n\n"
	    "  -q, --quiet         print nothing; the exit status says it all\n"
	    "  -v, --verbose       every check with its evidence, kernel and ABI\n"
	    "  -j, --json          the verbose detail as one JSON object\n"
	    "  -r, --require TIER  exit 1 below TIER (fs, fs+net, full; default fs)\n"
	    "  -h, --help          this text\n"
	    "      --version       print the version\n\n"
	    "Exit: 0 proven at or above TIER, 1 unproven or below it, 2 usage or\n"
	    "system error. See probe(1).\n");
}

static int
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "require", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof *o);
	o->fmt = FMT_DEFAULT;
	o->required = TIER_FS;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qvjr:h", lo, NULL)) != -1) {
		switch (c) {
		case 'q': o->quiet = 1; o->nfmt++; break;
		case 'v': o->fmt = FMT_VERBOSE; o->nfmt++; break;
		case 'j': o->fmt = FMT_JSON; o->nfmt++; break;
		case 'r':
			if (probe_tier_parse(optarg, &o->required) < 0) {
				msg_usage("unknown tier '%s' (fs, fs+net or full)", optarg);
				return -1;
			}
			break;
		case 'h': help(); return 1;
		case 'V': printf("probe %s\n", CORRAL_VERSION); return 1;
		default:
			msg_badopt(c, argc, argv, NULL);
			return -2;	/* hint given */
		}
	}
	if (optind < argc) {
		msg_usage("unexpected operand '%s'; " USAGE, argv[optind]);
		return -1;
	}
	if (o->nfmt > 1) {
		msg_usage("-q, -v and -j exclude each other; " USAGE);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	/* Static, untouched until the children are gone: on the stack these
	 * 30 KB would be copied-on-write pages after the fork, a fault
	 * apiece (some 15 us each on a virtual machine). */
	static char out[65536];
	static struct probe_outcome oc[PROBE_MAX_CHECKS];
	static struct probe_result res[PROBE_MAX_CHECKS];
	unsigned char proven[PROBE_MAX_CHECKS];
	struct probe_result v;
	struct probe_ctx ctx;
	struct probe_report r;
	struct utsname u;
	struct opts o;
	const char *what;
	size_t i;
	int n, rc, words;

	msg_init(argv[0]);
	rc = parse(argc, argv, &o);
	if (rc == -1)
		msg_hint("probe --help");
	if (rc < 0)
		return EXIT_USAGE;
	if (rc > 0)	/* --help, --version */
		return msg_stdout_done() == 0 ? 0 : EXIT_USAGE;
	if (probe_setup_first(&ctx, &what) < 0) {
		msg_fatal_sys("unable to set up the %s", what);
		probe_teardown(&ctx);
		return EXIT_USAGE;
	}
	/* A forked child whose checks need only the outside listener
	 * (PROBE_EARLY) starts before the rest of the fixtures are made (the
	 * egress child, in the sanitizer build, which forks every child),
	 * and they go as soon as no running child uses them. */
	ctx.setup_rest = 1;
	ctx.drop_rest = 1;
	rc = probe_run(&ctx, oc, TIMEOUT_MS, probe_child);
	if (rc == 0)
		probe_above(&ctx, oc, TIMEOUT_MS);
	if (rc < 0) {
		if (ctx.what != NULL)
			msg_fatal_sys("unable to set up the %s%s%s", ctx.what,
			    ctx.dir[0] ? " in " : "", ctx.dir);
		else
			msg_fatal_sys("unable to run the checks");
		probe_teardown(&ctx);
		return EXIT_USAGE;
	}
	probe_teardown(&ctx);
	/* The verdicts, a byte each: each check is judged into one scratch
	 * result, not into res, 24 entries of 1,580 bytes (38 KB, 10 pages
	 * to populate and to free at the exit) that only words need. Their
	 * words only where they are shown (the verbose and JSON reports, a
	 * refusal): the default line and --quiet need none, and some 240
	 * formatted strings cost ~50 us. */
	for (i = 0; i < probe_nchecks; i++)
		proven[i] = (unsigned char)(probe_verdict(&probe_checks[i], &oc[i], &v) != 0);
	memset(&r, 0, sizeof r);
	r.checks = probe_checks;
	r.results = res;
	r.n = probe_nchecks;
	r.required = o.required;
	r.failing = probe_first_failing_proven(probe_checks, proven, probe_nchecks, o.required);
	words = r.failing >= 0 || (!o.quiet && o.fmt != FMT_DEFAULT);
	if (words) {
		/* populated in one call, not a page fault for each page */
		probe_prefault(res, probe_nchecks * sizeof res[0]);
		for (i = 0; i < probe_nchecks; i++)
			probe_judge(&probe_checks[i], &oc[i], &res[i]);
		r.failing = probe_first_failing(probe_checks, res, probe_nchecks, o.required);
		r.kernel = uname(&u) == 0 ? u.release : "unknown";
		r.abi = sb_abi();
		r.tier = probe_tier_of(probe_checks, res, probe_nchecks);
	} else {
		r.tier = probe_tier_of_proven(probe_checks, proven, probe_nchecks);
	}
	if (!o.quiet) {
		/* the verbose and JSON reports' size, or a start; the default
		 * line (some 30 bytes) touches one page, a fault, not two */
		if (o.fmt != FMT_DEFAULT)
			probe_prefault(out, 8192);
		n = probe_format(o.fmt, &r, out, sizeof out);
		if (n < 0 || fd_write_all(1, out, (size_t)n) < 0) {
			msg_fatal_sys("unable to write the report");
			return EXIT_USAGE;
		}
	}
	if (r.failing >= 0) {
		const struct probe_check *c = &probe_checks[r.failing];

		if (r.tier == TIER_NONE)
			msg_fatal("containment unproven: check %s: %s", c->name,
			    res[r.failing].evidence);
		else
			msg_fatal("tier %s is below the required %s: check %s: %s",
			    probe_tier_name(r.tier), probe_tier_name(r.required),
			    c->name, res[r.failing].evidence);
		msg_hint("%s; probe --verbose shows every check", c->hint);
		return EXIT_NO;
	}
	return 0;
}
