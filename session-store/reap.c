/* session-store reap: records of dead attempts, their markers and trees
 * (lib/storeattempt.c, which begin --reap and home-stage create --begin run too). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "msg.h"
#include "num.h"
#include "ss.h"
#include "store.h"
#include "storeattempt.h"

enum { REAP_DEFAULT = 86400 };

int
ss_reap(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "older-than", required_argument, NULL, 'o' },
		{ "trees", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t bound = REAP_DEFAULT;
	int c, lk, r;

	OPTLOOP(opts) {
		switch (c) {
		case 'o':
			if (num_parse_duration(optarg, &bound) < 0 || bound > (uint64_t)INT32_MAX * 100) {
				msg_fatal("bad --older-than %.32s (want N, Ns, Nm, Nh or Nd)", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't': s->trees = optarg; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if (optind != argc)
		return ss_usage_err();
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		return EXIT_USAGE;
	}
	r = store_reap_locked(s->fd, s->store, s->trees, bound, 1);
	close(lk);
	if (fflush(stdout) != 0)
		return EXIT_USAGE;
	return r < 0 ? -r : r ? EXIT_USAGE : 0;
}
