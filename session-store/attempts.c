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
#include "json.h"
#include "num.h"
#include "rnd.h"

static int
write_record(int afd, const struct attempt *a)
{
	char buf[STORE_RECORD_MAX];
	int n = attempt_format(a, buf, sizeof buf);

	if (n < 0)
		return -1;
	/* attempt bookkeeping: atomic (temp + rename), not fsynced; losing
	 * a record to a power cut loses nothing that matters */
	return file_replace_atomic(afd, a->id, buf, (size_t)n, 0600);
}

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
	int c, afd, lk, reap = 0, r;

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
	memset(&a, 0, sizeof a);
	if (!prof_name_ok(agent)) {
		msg_fatal("bad agent name (want [a-z0-9][a-z0-9._-]*, at most 32)");
		return EXIT_USAGE;
	}
	if (id != NULL && !store_id_ok(id)) {
		msg_fatal("bad --id (want 32 lowercase hex digits)");
		return EXIT_USAGE;
	}
	strcpy(a.agent, agent);
	a.pid = getppid();
	if (pid != NULL) {
		int v;
		if (num_parse_int(pid, 1, 1 << 22, &v) < 0) {
			msg_fatal("bad --pid %.32s", pid);
			return EXIT_USAGE;
		}
		a.pid = v;
	}
	if (proc_starttime(a.pid, &a.pid_start) < 0) {
		msg_fatal_sys("process %" PRId64, a.pid);
		return EXIT_USAGE;
	}
	a.start = (int64_t)time(NULL);
	if (id != NULL) {
		strcpy(a.id, id);
	} else if (rnd_hex(a.id, STORE_ID_LEN / 2) < 0) {
		msg_fatal_sys("unable to make an attempt id (getrandom)");
		return EXIT_USAGE;
	}
	if ((afd = ss_open_sub(s, "attempts")) < 0)
		return -afd;
	/* under the lock: a concurrent reap never takes our temp file for
	 * the leftover of a killed write */
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		return EXIT_USAGE;
	}
	/* an id the caller chose is new, or refused: never another's record */
	if (id != NULL && faccessat(afd, a.id, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		msg_fatal("attempt %s exists already", a.id);
		return EXIT_NO;
	}
	if (write_record(afd, &a) < 0) {
		msg_fatal_sys("unable to write the attempt record");
		return EXIT_USAGE;
	}
	/* the leftovers of attempts whose process is gone (ours is alive and
	 * recorded): what a killed corral left goes at the next begin; one
	 * that could not be removed is said and tried again next time */
	if (reap && (r = ss_reap_locked(s, 0, 0)) < 0)
		return -r;
	close(lk);
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
	struct attempt a;
	int c, afd, lk, st;

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
	if ((afd = ss_open_sub(s, "attempts")) < 0)
		return -afd;
	if ((lk = store_lock(s->fd)) < 0) {
		msg_fatal_sys("unable to lock the store");
		return EXIT_USAGE;
	}
	if (store_read_attempt(afd, id, &a) < 0) {
		msg_fatal_sys("attempt %s", id);
		return errno == ENOENT ? EXIT_NO : EXIT_USAGE;
	}
	if (a.ended) {
		msg_fatal("attempt %s has already ended", id);
		return EXIT_NO;
	}
	a.ended = 1;
	a.end = (int64_t)time(NULL);
	a.status = st;
	snprintf(a.platform, sizeof a.platform, "%s", platform ? platform : "");
	snprintf(a.tier, sizeof a.tier, "%s", tier ? tier : "");
	if (write_record(afd, &a) < 0) {
		msg_fatal_sys("unable to write the attempt record");
		return EXIT_USAGE;
	}
	close(lk);
	return 0;
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
