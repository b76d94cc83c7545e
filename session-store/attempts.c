/* session-store: attempt records (begin, end, list, show). */
#include <dirent.h>
#include <inttypes.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"
#include "msg.h"
#include "ss.h"
#include "store.h"
#include "storeattempt.h"
#include "json.h"
#include "num.h"
#include "rnd.h"

int
ss_begin(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "agent", required_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, 'p' },
		{ "id", required_argument, NULL, 'i' },
		{ "reap", no_argument, NULL, 'r' },
		{ "trees", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct attempt a;
	const char *agent = NULL, *pid = NULL, *id = NULL;
	char idbuf[STORE_ID_LEN + 1];
	int c, reap = 0, r, v = 0, recorded;

	OPTLOOP(opts) {
		switch (c) {
		case 'a': agent = optarg; break;
		case 'p': pid = optarg; break;
		case 'i': id = optarg; break;
		case 'r': reap = 1; break;
		case 't': s->trees = optarg; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if (optind != argc || agent == NULL || (s->trees && !reap)) {
		msg_usage("begin --agent NAME [--pid N] [--id ID] [--reap [--trees DIR]]");
		return EXIT_USAGE;
	}
	if (!prof_name_ok(agent)) {
		msg_fatal("bad agent name (want [a-z0-9][a-z0-9._-]*, at most 32)");
		return EXIT_USAGE;
	}
	if (id != NULL && !store_id_ok(id)) {
		msg_fatal("bad --id (want 32 lowercase hex digits)");
		return EXIT_USAGE;
	}
	if (pid != NULL && num_parse_int(pid, 1, 1 << 22, &v) < 0) {
		msg_fatal("bad --pid %.32s", pid);
		return EXIT_USAGE;
	}
	if (id == NULL && rnd_hex(idbuf, STORE_ID_LEN / 2) < 0) {
		msg_fatal_sys("unable to make an attempt id (getrandom)");
		return EXIT_USAGE;
	}
	if (store_attempt_new(&a, id ? id : idbuf, agent, pid ? v : getppid()) < 0) {
		msg_fatal_sys("process %d", pid ? v : (int)getppid());
		return EXIT_USAGE;
	}
	if ((r = store_attempt_begin(s->fd, s->store, &a, reap, s->trees, &recorded)) < 0)
		return -r;
	printf("%s\n", a.id);
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

int
ss_end(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "status", required_argument, NULL, 's' },
		{ "platform", required_argument, NULL, 'p' },
		{ "tier", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *status = NULL, *platform = NULL, *tier = NULL, *id;
	int c, st, r;

	id = ss_take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 's': status = optarg; break;
		case 'p': platform = optarg; break;
		case 't': tier = optarg; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if ((id = ss_operand(id, argc, argv)) == NULL || status == NULL) {
		msg_usage("end ID --status N [--platform P] [--tier T]");
		return EXIT_USAGE;
	}
	if (!store_id_ok(id)) {
		msg_fatal("bad attempt id (want 32 lowercase hex digits)");
		return EXIT_USAGE;
	}
	if (num_parse_int(status, 0, 255, &st) < 0) {
		msg_fatal("bad --status %.16s (want 0 to 255)", status);
		return EXIT_USAGE;
	}
	if ((platform && !store_label_ok(platform)) || (tier && !store_label_ok(tier))) {
		msg_fatal("bad --platform or --tier (want [A-Za-z0-9._:+-], at most 32)");
		return EXIT_USAGE;
	}
	r = store_attempt_end(s->fd, s->store, id, st, platform, tier);
	return -r;
}

static void
print_text(const struct attempt *a)
{
	char end[24] = "-", st[8] = "-";

	if (a->ended) {
		snprintf(end, sizeof end, "%" PRId64, a->end);
		snprintf(st, sizeof st, "%d", a->status);
	}
	printf("%s\t%s\t%" PRId64 "\t%" PRId64 "\t%s\t%s\t%s\t%s\n", a->id, a->agent, a->pid, a->start,
	    end, st, a->platform[0] ? a->platform : "-", a->tier[0] ? a->tier : "-");
}

static void
print_json(const struct attempt *a)
{
	char buf[STORE_RECORD_MAX];
	int n = attempt_format(a, buf, sizeof buf);

	if (n > 0)
		printf("%.*s", n - 1, buf);	/* without the newline */
}

static int
cmp_attempt(const void *x, const void *y)
{
	const struct attempt *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return strcmp(a->id, b->id);
}

int
ss_list(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct attempt *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int c, json = 0, afd;

	OPTLOOP(opts) {
		switch (c) {
		case 'j': json = 1; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if (optind != argc)
		return ss_usage_err();
	if ((afd = ss_open_sub(s, "attempts")) < 0)
		return -afd;
	d = fdopendir(afd);
	if (d == NULL) {
		msg_fatal_sys("unable to read attempts");
		return EXIT_USAGE;
	}
	while ((de = readdir(d)) != NULL) {
		if (!store_id_ok(de->d_name))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof *v);
			if (nv == NULL) {
				msg_fatal_sys("unable to list the attempts");
				free(v);
				return EXIT_USAGE;
			}
			v = nv;
		}
		if (store_read_attempt(dirfd(d), de->d_name, &v[n]) < 0) {
			msg_warn("attempt %s: unreadable record, skipped", de->d_name);
			continue;
		}
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_attempt);
	if (json)
		printf("[");
	for (i = 0; i < n; i++) {
		if (json) {
			printf("%s", i ? "," : "");
			print_json(&v[i]);
		} else {
			print_text(&v[i]);
		}
	}
	if (json)
		printf("]\n");
	free(v);
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}

int
ss_show(struct ss *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct attempt a;
	const char *id;
	int c, json = 0, afd;

	id = ss_take_operand(&argc, &argv);
	OPTLOOP(opts) {
		switch (c) {
		case 'j': json = 1; break;
		default: return ss_badopt(c, argc, argv);
		}
	}
	if ((id = ss_operand(id, argc, argv)) == NULL)
		return ss_usage_err();
	if (!store_id_ok(id)) {
		msg_fatal("bad attempt id (want 32 lowercase hex digits)");
		return EXIT_USAGE;
	}
	if ((afd = ss_open_sub(s, "attempts")) < 0)
		return -afd;
	if (store_read_attempt(afd, id, &a) < 0) {
		msg_fatal_sys("attempt %s", id);
		return errno == ENOENT ? EXIT_NO : EXIT_USAGE;
	}
	if (json) {
		print_json(&a);
		printf("\n");
	} else {
		printf("id %s\nagent %s\npid %" PRId64 "\nstart %" PRId64 "\n", a.id, a.agent, a.pid, a.start);
		if (a.ended)
			printf("end %" PRId64 "\nstatus %d\nplatform %s\ntier %s\n", a.end, a.status,
			    a.platform[0] ? a.platform : "-", a.tier[0] ? a.tier : "-");
		else
			printf("end -\n");
	}
	return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
}
