#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>

#include "fdio.h"
#include "msg.h"
#include "private.h"
#include "token.h"

int
token_valid(const char *t, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x21 || (unsigned char)t[i] > 0x7e)
			return 0;
	return 1;
}

int
token_read(const char *path, int fd, char *out, size_t cap, const char **why)
{
	static char whybuf[128];
	struct stat st;
	ssize_t n;
	int own = 0;

	*why = NULL;
	if (path) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)) < 0)
			return -1;
		own = 1;
		if (fstat(fd, &st) < 0)
			goto fail;
		if (private_check(&st, whybuf + 3, sizeof whybuf - 3) < 0) {
			memcpy(whybuf, "is ", 3);
			*why = whybuf;
			goto fail;
		}
	}
	n = fd_read_bounded(fd, out, cap - 1);
	if (n < 0) {
		if (errno == EFBIG)
			*why = "is too long";
		goto fail;
	}
	close(fd);
	if (n > 0 && out[n - 1] == '\n')
		n--;
	if (n > 0 && out[n - 1] == '\r')
		n--;
	out[n] = '\0';
	if (!token_valid(out, (size_t)n)) {
		explicit_bzero(out, cap);
		*why = n == 0 ? "is empty" : "has characters a header cannot carry";
		return -1;
	}
	return 0;
fail:
	if (own || fd >= 0)
		close(fd);
	explicit_bzero(out, cap);
	return -1;
}

int
token_load(const char *what, const char *path, int fd, const char *fdopt, char *out, size_t cap)
{
	const char *why = NULL;
	char from[64];

	snprintf(from, sizeof from, "from %s", fdopt);
	if (token_read(path, fd, out, cap, &why) == 0)
		return 0;
	if (why)
		msg_fatal("%s %s %s", what, path ? path : from, why);
	else
		msg_fatal_sys("unable to read the %s %s", what, path ? path : from);
	if (path && why && strstr(why, "by group or others"))
		msg_hint("chmod 0600 %s", path);
	return -1;
}
