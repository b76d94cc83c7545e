/* audit-set 0|1: turn kernel audit off or on (AUDIT_SET, root), print the
 * state it had before. For the denial tests only: corral itself never
 * changes a machine's audit settings. */
#include <linux/netlink.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { AUDIT_GET_ = 1000, AUDIT_SET_ = 1001 };

static int
talk(int fd, int type, const void *body, size_t n, uint32_t *enabled)
{
	char buf[512];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct pollfd pf = { fd, POLLIN, 0 };

	memset(buf, 0, sizeof buf);
	h->nlmsg_len = NLMSG_LENGTH(n);
	h->nlmsg_type = (uint16_t)type;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	memcpy(NLMSG_DATA(h), body, n);
	if (send(fd, buf, h->nlmsg_len, 0) < 0)
		return -1;
	while (poll(&pf, 1, 1000) == 1) {
		ssize_t r = recv(fd, buf, sizeof buf, 0);
		if (r < (ssize_t)sizeof *h)
			return -1;
		if (h->nlmsg_type == NLMSG_ERROR) {
			int err;
			memcpy(&err, NLMSG_DATA(h), sizeof err);
			if (err != 0 || type == AUDIT_SET_)
				return err ? -1 : 0;
			continue;
		}
		if (h->nlmsg_type == AUDIT_GET_ && enabled) {
			uint32_t st[2];
			memcpy(st, NLMSG_DATA(h), sizeof st);
			*enabled = st[1];
			return 0;
		}
	}
	return -1;
}

int
main(int argc, char **argv)
{
	uint32_t st[10] = { 0 }, before = 0;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 9 /* NETLINK_AUDIT */);

	if (argc != 2 || (strcmp(argv[1], "0") && strcmp(argv[1], "1"))) {
		fprintf(stderr, "usage: audit-set 0|1\n");
		return 2;
	}
	if (fd < 0 || talk(fd, AUDIT_GET_, st, 0, &before) < 0) {
		perror("audit-set: AUDIT_GET");
		return 1;
	}
	st[0] = 1;			/* mask: AUDIT_STATUS_ENABLED */
	st[1] = argv[1][0] == '1';	/* enabled */
	if (talk(fd, AUDIT_SET_, st, sizeof st, NULL) < 0) {
		perror("audit-set: AUDIT_SET");
		return 1;
	}
	printf("%u\n", before);
	return 0;
}
