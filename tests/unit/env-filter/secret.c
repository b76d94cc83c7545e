/* env-filter's secret-shape scanner. */
#include <string.h>

#include "secret.h"
#include "tap.h"

static const char *
shape(const char *s)
{
	return secret_shape(s, strlen(s));
}

int
main(void)
{
	static const char *const clean[] = {
		"/root/.cargo/bin:/root/.pyenv/plugins/pyenv-virtualenv/shims:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"/home/alice/.nvm/versions/node/v20.11.1/bin:/nix/store/9x2k5l0a1b2c3d4f5g6h7i8j9k0lmnpq-coreutils-9.3/bin",
		"/home/Alice/Library/Application_Support/Code2/User/globalStorage/bin",
		"/usr/share/locale-langpack/en_US/LC_MESSAGES/Some_Translations_Here",
		"/etc/ssl/certs/ca-certificates.crt", "en_US.UTF-8", "C.UTF-8",
		"America/Argentina/Buenos_Aires", "xterm-256color", "/bin/bash", "alice",
		"/tmp/user-1000", "desk-top-tools", "task-runner", "Europe/London",
		"The quick brown fox jumps over the lazy dog 1234567890 times",
		"HelloWorldThisIsAnOrdinaryCamelCaseIdentifier2024Version",
		"/home/runner/work/my-project/my-project/node_modules/.bin",
		"/nix/store/0c7hkp8w3rqlq8h1k8b2dqvmq2x6c5ym-nodejs-20.11.1/bin:/run/current-system/sw/bin",
		"/usr/lib/x86_64-linux-gnu/pkgconfig:/usr/lib/x86_64-linux-gnu/gio/modules",
		"", "0", "ghp_short", "sk-short", "AKIAshort",
	};
	size_t i;

	for (i = 0; i < sizeof clean / sizeof clean[0]; i++)
		ok(shape(clean[i]) == NULL, "clean: %s", clean[i]);

	is_str(shape("ghp_abcdefghijABCDEFGHIJ0123456789abcd"), "GitHub token", "ghp_");
	is_str(shape("gho_abcdefghijABCDEFGHIJ0123456789abcd"), "GitHub token", "gho_");
	is_str(shape("github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJ"),
	    "GitHub token", "github_pat_");
	is_str(shape("token ghp_abcdefghijABCDEFGHIJ0123456789abcd here"), "GitHub token",
	    "ghp_ inside a value");
	is_str(shape("xghp_abcdefghijklmnopqrst"), NULL, "a prefix inside a word is no prefix");
	is_str(shape("sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345"), "secret API key (sk-)", "sk-ant-");
	is_str(shape("sk-proj-ABCDEFGHIJKLMNOPQRSTUV"), "secret API key (sk-)", "sk-proj-");
	is_str(shape("AKIAIOSFODNN7EXAMPLE"), "AWS access key", "AKIA");
	is_str(shape("ASIAIOSFODNN7EXAMPLE"), "AWS access key", "ASIA");
	is_str(shape("xoxb-1234567890-abcdefghij"), "Slack token", "xoxb-");
	is_str(shape("xoxp-1234567890-abcdefghij"), "Slack token", "xoxp-");
	is_str(shape("xoxa-1234567890-abcdefghij"), "Slack token", "xoxa-");
	is_str(shape("glpat-abcdefghij0123456789"), "GitLab token", "glpat-");
	is_str(shape("npm_abcdefghijABCDEFGHIJ0123456789abcdef"), "npm token", "npm_");
	is_str(shape("AIzaSyA1234567890abcdefghijklmnopqrstuv"), "Google API key", "AIza");
	is_str(shape("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"), "JWT", "JWT");
	is_str(shape("Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0In0."), "JWT", "unsigned JWT in a value");
	is_str(shape("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----\n"),
	    "PEM block", "PEM");
	is_str(shape("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), "long random string",
	    "AWS secret key (base64, 40)");
	is_str(shape("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
	    "long random string", "64 hex digits");
	is_str(shape("a1b2c3d4e5f60718293a4b5c6d7e8f90"), "long random string", "32 hex digits");
	is_str(shape("k=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo"), "long random string",
	    "base64 after a k=");
	is_str(shape("postgres://u:Xk9vQ2mL7pR4tW8yB3nF6hJ1sD5gA0cE@db/x"), "long random string",
	    "a random password inside a URL");
	is_str(shape("x=kq3v8z1m0p7r4t2w9y6b5n3c8x1z0q4w"), "long random string",
	    "a lower-case base36 key");
	is_str(shape("/opt/wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"), "long random string",
	    "a mixed-case key at the end of a path");
	return done_testing();
}
