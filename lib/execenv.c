#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "execenv.h"
#include "msg.h"

const char *
env_get(char *const envp[], const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

int
exec_resolve(const char *prog, const char *path, char *out, size_t n)
{
	const char *p, *e;
	struct stat st;
	int seen_eacces = 0;
	size_t dl, pl = strlen(prog);

	if (pl == 0)
		return errno = ENOENT, -1;
	if (strchr(prog, '/')) {
		if (pl >= n)
			return errno = ENAMETOOLONG, -1;
		memcpy(out, prog, pl + 1);
		if (stat(out, &st) < 0)
			return -1;
		if (S_ISDIR(st.st_mode) || access(out, X_OK) < 0)
			return errno = EACCES, -1;
		return 0;
	}
	for (p = path; ; p = e + 1) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		dl = (size_t)(e - p);
		if (dl == 0) {		/* an empty entry means "." */
			p = ".";
			dl = 1;
		}
		if (dl + 1 + pl < n) {
			memcpy(out, p, dl);
			out[dl] = '/';
			memcpy(out + dl + 1, prog, pl + 1);
			if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode)) {
				if (access(out, X_OK) == 0)
					return 0;
				seen_eacces = 1;
			}
		}
		if (*e == '\0')
			break;
	}
	return errno = seen_eacces ? EACCES : ENOENT, -1;
}

int
exec_env(char *const argv[], char *const envp[])
{
	char buf[PATH_MAX];
	const char *path = env_get(envp, "PATH");

	if (strchr(argv[0], '/')) {
		/* a path (keeper's, env-filter's and confine's next step, the
		 * agent's command): exec'd as it is, and checked only when that
		 * fails, for the errno the checks give (a stat and an access
		 * fewer on the way; a check that fails fails the execve too,
		 * before Landlock's hook: a missing file, DAC, a directory) */
		int e;
		execve(argv[0], argv, envp);
		e = errno;
		if (exec_resolve(argv[0], "", buf, sizeof buf) < 0)
			return -1;
		errno = e;
	} else {
		if (path == NULL)
			path = "/usr/bin:/bin";
		if (exec_resolve(argv[0], path, buf, sizeof buf) < 0)
			return -1;
		execve(buf, argv, envp);
	}
	if (errno == ENOEXEC || errno == EISDIR)
		errno = EACCES;
	return -1;
}

int
exec_status(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG || err == ELOOP
	    ? EXIT_NOTFOUND : EXIT_NOEXEC;
}
