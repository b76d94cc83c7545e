/* verify: the one network request session-store makes. The answer is
 * bounded, parsed as JSON, and only the string at the profile's pointer is
 * used. Redirects are not followed (the token stays with the URL the
 * profile names); only https; no proxy. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "json.h"
#include "verify.h"

struct answer {
	char buf[VERIFY_ANSWER_MAX];
	size_t n;
	int over;
};

static size_t
on_write(char *p, size_t sz, size_t nm, void *u)
{
	struct answer *a = u;
	size_t n = sz * nm;

	if (n > sizeof a->buf - a->n) {
		a->over = 1;
		return 0;	/* aborts the transfer */
	}
	memcpy(a->buf + a->n, p, n);
	a->n += n;
	return n;
}

/* The socket curl opens, so the loop below can wait on it: with BearSSL,
 * curl does not wait on the socket during the handshake (it sleeps out its
 * own timeouts), which cost a second per request. */
static curl_socket_t
open_sock(void *u, curlsocktype purpose, struct curl_sockaddr *a)
{
	int *fdp = u, fd;

	(void)purpose;
	fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
	if (fd >= 0)
		*fdp = fd;
	return fd < 0 ? CURL_SOCKET_BAD : fd;
}

/* curl_easy_perform, waking as soon as the socket has something to read */
static CURLcode
perform(CURL *e)
{
	CURLM *m = curl_multi_init();
	CURLcode cr = CURLE_FAILED_INIT;
	struct pollfd p;
	CURLMsg *msg;
	int running = 1, sock = -1, q;

	if (m == NULL)
		return CURLE_OUT_OF_MEMORY;
	curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_sock);
	curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &sock);
	if (curl_multi_add_handle(m, e) != CURLM_OK) {
		curl_multi_cleanup(m);
		return cr;
	}
	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		if (!running)
			break;
		if (sock >= 0) {
			p.fd = sock;
			p.events = POLLIN;
			(void)poll(&p, 1, 20);
		} else {
			curl_multi_poll(m, NULL, 0, 20, NULL);
		}
	}
	while ((msg = curl_multi_info_read(m, &q)) != NULL)
		if (msg->msg == CURLMSG_DONE)
			cr = msg->data.result;
	curl_multi_remove_handle(m, e);
	curl_multi_cleanup(m);
	return cr;
}

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t errn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errn, fmt, ap);
	va_end(ap);
	return -1;
}

/* The account id at v->account in the answer. */
static int
parse_answer(const struct prof_verify *v, const struct answer *a, char *acct, size_t n,
    char *err, size_t errn)
{
	jsmntok_t *t;
	int nt, k, l;

	if ((t = calloc(4096, sizeof *t)) == NULL)
		return fail(err, errn, "out of memory");
	nt = json_parse(a->buf, a->n, t, 4096);
	k = nt < 0 ? -1 : json_pointer(a->buf, t, nt, 0, v->account);
	l = k >= 0 && t[k].type == JSMN_STRING ? json_str(a->buf, &t[k], acct, n) : -1;
	free(t);
	if (nt < 0)
		return fail(err, errn, "the provider's answer is not JSON");
	if (l <= 0 || (size_t)l != strlen(acct))
		return fail(err, errn, "the provider's answer names no account at %s", v->account);
	return 0;
}

int
verify_account(const struct prof_verify *v, const char *token, const char *cacert,
    char *acct, size_t n, char *err, size_t errn)
{
	struct answer *a = NULL;
	struct curl_slist *h = NULL, *nh;
	char ebuf[CURL_ERROR_SIZE] = "", *line = NULL;
	size_t ln = strlen(v->header) + strlen(token) + 16;
	long code = 0;
	CURLcode cr;
	CURL *e = NULL;
	int r = -1;

	if (v->url[0] == '\0')
		return fail(err, errn, "the profile names no verification request");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || (e = curl_easy_init()) == NULL ||
	    (a = calloc(1, sizeof *a)) == NULL || (line = malloc(ln)) == NULL) {
		fail(err, errn, "unable to set up the request");
		goto out;
	}
	snprintf(line, ln, "%s: %s%s", v->header, v->bearer ? "Bearer " : "", token);
	if ((h = curl_slist_append(NULL, line)) == NULL)
		goto nomem;
	if ((nh = curl_slist_append(h, "Accept: application/json")) == NULL)
		goto nomem;
	for (int i = 0; i < v->nextra; i++)
		if ((nh = curl_slist_append(h, v->extra[i])) == NULL)
			goto nomem;
	curl_easy_setopt(e, CURLOPT_URL, v->url);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	/* no proxy named in the environment ever sees the token */
	curl_easy_setopt(e, CURLOPT_PROXY, "");
	curl_easy_setopt(e, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
	if (cacert)
		curl_easy_setopt(e, CURLOPT_CAINFO, cacert);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, ebuf);
	if (v->post) {
		curl_easy_setopt(e, CURLOPT_POST, 1L);
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, 0L);
	}
	cr = perform(e);
	if (cr != CURLE_OK) {
		if (a->over)
			fail(err, errn, "the provider's answer is larger than %d bytes", VERIFY_ANSWER_MAX);
		else
			fail(err, errn, "%s: %s", v->url, ebuf[0] ? ebuf : curl_easy_strerror(cr));
		goto out;
	}
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
	if (code != 200) {
		fail(err, errn, "%s answered HTTP %ld", v->url, code);
		goto out;
	}
	r = parse_answer(v, a, acct, n, err, errn);
	goto out;
nomem:
	fail(err, errn, "out of memory");
out:
	if (line) {
		explicit_bzero(line, ln);
		free(line);
	}
	curl_slist_free_all(h);
	if (e)
		curl_easy_cleanup(e);
	if (a) {
		explicit_bzero(a, sizeof *a);
		free(a);
	}
	return r;
}
