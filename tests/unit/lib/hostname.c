#include <string.h>

#include "hostname.h"
#include "tap.h"

static const char *
norm(const char *s, int pattern)
{
	static char out[HOST_MAX];

	return host_normalize(s, strlen(s), pattern, out) == HOST_BAD ? "BAD" : out;
}

int
main(void)
{
	char out[HOST_MAX];
	unsigned cp[] = { 'b', 0xfc, 'c', 'h', 'e', 'r' };
	char big[300];

	is_int(punycode_encode(cp, 6, out, sizeof out), 9, "punycode length");
	is_str(out, "bcher-kva", "punycode of b\xc3\xbc" "cher (RFC 3492)");
	is_str(norm("B\xc3\x9c" "cher.Example", 0), "xn--bcher-kva.example", "IDNA: lowercased, punycode");
	is_str(norm("\xe4\xbe\x8b\xe3\x81\x88.jp", 0), "xn--r8jz45g.jp", "IDNA: a Japanese label");
	is_str(norm("m\xc3\xbcnchen.de", 0), "xn--mnchen-3ya.de", "IDNA: m\xc3\xbcnchen.de");
	is_str(norm("xn--MNCHEN-3ya.de", 0), "xn--mnchen-3ya.de", "punycode input lowercased, kept");
	is_str(norm("Registry.NPMJS.org.", 0), "registry.npmjs.org", "ASCII lowercased, trailing dot dropped");
	is_str(norm("*.Example.com", 1), "*.example.com", "a wildcard pattern");
	is_str(norm("*.example.com", 0), "BAD", "no wildcard in a request");
	is_str(norm("a..b", 0), "BAD", "empty label refused");
	is_str(norm("-a.b", 0), "BAD", "label starting with '-' refused");
	is_str(norm("a_b.c", 0), "BAD", "'_' refused");
	is_str(norm("a b", 0), "BAD", "space refused");
	is_str(norm("a\xff.b", 0), "BAD", "invalid UTF-8 refused");
	is_str(norm("\xc0\xae.b", 0), "BAD", "overlong UTF-8 refused");
	memset(big, 'a', 64);
	big[64] = '\0';
	is_str(norm(big, 0), "BAD", "a 64-byte label refused");
	is_str(norm("198.51.100.10", 0), "198.51.100.10", "IPv4 literal");
	/* found by fuzz/lib/hostname.c: "0.0.0.0." was the name "0.0.0.0",
	 * which normalized again became the IPv4 literal */
	is_int(host_normalize("0.0.0.0.", 8, 0, out), HOST_IP4, "a dotted quad with a trailing dot is IPv4");
	is_str(out, "0.0.0.0", "... its canonical text");
	is_int(host_normalize("169.254.169.254.", 16, 0, out), HOST_IP4, "... the metadata address too");
	is_str(norm("::1.", 0), "BAD", "an IPv6 literal with a trailing dot is refused");
	is_str(norm("1.2.3.4..", 0), "BAD", "two trailing dots are refused");
	is_str(norm("[2001:DB8::10]", 0), "2001:db8::10", "bracketed IPv6 literal, canonical");
	is_str(norm("2001:db8:0::10", 1), "2001:db8::10", "bare IPv6 literal, canonical");
	is_int(host_normalize("[::1", 4, 0, out), HOST_BAD, "half a bracket refused");
	is_int(host_match("*.example.com", "a.example.com"), 1, "wildcard matches a subdomain");
	is_int(host_match("*.example.com", "a.b.example.com"), 1, "... and a deeper one");
	is_int(host_match("*.example.com", "example.com"), 0, "... not the name itself");
	is_int(host_match("*.example.com", "badexample.com"), 0, "... not a suffix without the dot");
	is_int(host_match("example.com", "example.com"), 1, "exact");
	is_int(host_match("example.com", "a.example.com"), 0, "exact is exact");
	return done_testing();
}
