#include <errno.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "tap.h"

static const char *js_last;

static int
parse(const char *s, jsmntok_t *t, unsigned n)
{
	js_last = s;
	return json_parse(s, strlen(s), t, n);
}

int
main(void)
{
	jsmntok_t t[64];
	const char *js;
	char buf[64];
	int64_t v;
	int n, k;

	js = "{\"a\": {\"b\": [1, 2, {\"c\": \"x\\u00e9\"}]}, \"n\": -12}";
	n = parse(js, t, 64);
	ok(n > 0, "nested document parses");
	k = json_pointer(js, t, n, 0, "/a/b/2/c");
	ok(k > 0 && json_str(js, &t[k], buf, sizeof buf) == 3 && strcmp(buf, "x\xc3\xa9") == 0,
	    "pointer reaches an escaped string");
	k = json_get(js, t, 0, "n");
	ok(k > 0 && json_int(js, &t[k], &v) == 0 && v == -12, "integer member");
	is_int(json_pointer(js, t, n, 0, "/a/b/3"), -1, "index out of range");
	is_int(json_next(t, 0), n, "next of the root is the end");

	js = "{\"name\": \"a\", \"n\\u0061me\": \"b\"}";
	n = parse(js, t, 64);
	ok(n > 0, "duplicate keys tokenize");
	is_int(json_get(js, t, 0, "name"), -2, "duplicate key (escaped) detected");
	ok(json_eq(js, &t[1], "name") && json_eq(js, &t[3], "name") && !json_eq(js, &t[3], "n\\u0061me") &&
	    !json_eq(js, &t[3], "nam") && !json_eq(js, &t[3], "names") && !json_eq(js, &t[1], "nam") &&
	    !json_eq(js, &t[1], "namex") && !json_eq(js, &t[2], "name"), "json_eq: decoded strings, escaped or not");
	js = "[\"\\u00e9\", \"\\ud83d\\ude00\", \"\\\\\", \"a\\tb\"]";
	n = parse(js, t, 64);
	ok(n == 5 && json_eq(js, &t[1], "\xc3\xa9") && json_eq(js, &t[2], "\xf0\x9f\x98\x80") &&
	    json_eq(js, &t[3], "\\") && json_eq(js, &t[4], "a\tb") && !json_eq(js, &t[4], "a\\tb"),
	    "json_eq: each escape as it decodes");

	is_int(parse("{\"a\": 1} x", t, 64), -1, "trailing garbage refused");
	is_int(parse("{\"a\": 01}", t, 64), -1, "leading zero refused");
	is_int(parse("{\"a\": tru}", t, 64), -1, "bad literal refused");
	is_int(parse("{\"a\": \"\\x\"}", t, 64), -1, "bad escape refused");
	is_int(parse("{\"a\": \"\xff\"}", t, 64), -1, "invalid UTF-8 refused");
	is_int(parse("{\"a\": \"\\ud800\"}", t, 64), -1, "lone surrogate refused");
	is_int(parse("[1,2,3,4,5,6,7,8,9]", t, 4), -1, "token overflow refused");
	is_int(errno, ENOMEM, "token overflow is ENOMEM");
	ok(parse("  [ ]  ", t, 64) == 1, "whitespace around a value");
	is_int(parse("[\"a\",]", t, 64), -1, "trailing comma in an array refused");
	is_int(parse("{\"a\": 1,}", t, 64), -1, "trailing comma in an object refused");
	is_int(parse("[,1]", t, 64), -1, "leading comma refused");
	is_int(parse("[1 2]", t, 64), -1, "missing comma refused");
	is_int(parse("[1,,2]", t, 64), -1, "double comma refused");
	is_int(parse("{\"a\" 1}", t, 64), -1, "missing colon refused");
	ok(parse(" { \"a\" : [ 1 , { \"b\" : \"c\" } ] , \"d\" : { } } ", t, 64) > 0,
	    "separators with whitespace accepted");

	{
		static char deep[200000];
		static jsmntok_t dt[1 << 16];
		size_t dn = 0;
		for (int d = 0; d < 40000; d++)
			deep[dn++] = '[';
		for (int d = 0; d < 40000; d++)
			deep[dn++] = ']';
		ok(!json_depth_ok(deep, dn, JSON_MAX_DEPTH), "40000 deep is too deep");
		is_int(json_parse(deep, dn, dt, 1 << 16), -1, "json_parse refuses 40000 deep");
		is_int(errno, ELOOP, "as ELOOP");
		ok(json_depth_ok("[[\"[[[[\"]]", 11, 2), "brackets in strings do not count");
		ok(json_depth_ok("[\"\\\"[[\"]", 9, 1), "nor after an escaped quote");
		ok(!json_depth_ok("[[[]]]", 6, 2), "depth 3 over max 2");
		ok(json_depth_ok("[[]][[]]", 8, 2), "siblings do not add up");
	}
	n = parse("{\"a\":{\"k\":1,\"b\":{\"x\":1,\"\\u0078\":2}}}", t, 64);
	ok(n > 0, "nested escaped duplicate tokenizes");
	is_int(json_unique_keys(js_last, t, n, 0), 0, "nested escaped duplicate found");
	n = parse("{\"a\":{\"k\":1},\"b\":{\"k\":2},\"k\":[{\"k\":3}]}", t, 64);
	is_int(json_unique_keys(js_last, t, n, 0), 1, "the same key in different objects is fine");
	n = parse("{\"a\":1,\"b\":{\"c\":1},\"a\":2}", t, 64);
	is_int(json_unique_keys(js_last, t, n, 0), 0, "top-level duplicate found");
	is_int(json_unique_keys(js_last, t, n, 3), 1, "a subtree alone has none");

	ok(utf8_valid("\xe2\x82\xac", 3), "euro sign valid");
	ok(!utf8_valid("\xc0\xaf", 2), "overlong refused");
	ok(!utf8_valid("\xed\xa0\x80", 3), "encoded surrogate refused");
	is_int(json_quote("a\"\n\x01", 4, buf, sizeof buf), 13, "quote escapes");
	is_str(buf, "\"a\\\"\\n\\u0001\"", "quoted form");
	/* one quoter for every program: invalid UTF-8 is never copied into JSON */
	is_int(json_quote("a\xff\xc3\xa9\xed\xa0\x80", 7, buf, sizeof buf), 17, "invalid UTF-8 quoted");
	is_str(buf, "\"a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"",
	    "... as U+FFFD, a valid sequence kept");
	is_int(json_quote("abc", 3, buf, 5), -1, "no room: ENOSPC");
	is_int(json_quote("abc", 3, buf, 6), 5, "control: just room");
	{
		struct buf b = { 0 };
		buf_adds(&b, "x");
		is_int(json_quote_buf(&b, "a\tb", 3), 0, "appended to a buffer");
		is_str(b.p, "x\"a\\tb\"", "... after what was there");
		buf_free(&b);
	}
	return done_testing();
}
