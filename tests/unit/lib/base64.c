/* base64: round trips of every length and byte, RFC 4648 vectors, and the
 * inputs the decoder must refuse. */
#include <string.h>

#include "base64.h"
#include "tap.h"

int
main(void)
{
	static const char *const vec[][2] = { { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
	    { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" } };
	static const char *const bad[] = { "Zg=", "Zg", "Z===", "Zm9v!A==", "Zg==Zg==", "=Zg=", "Zm 9v", "Zh=a" };
	unsigned char in[300], back[300];
	char enc[B64_LEN(300) + 1];
	int good = 1;

	for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++) {
		long n = b64_encode(vec[i][0], strlen(vec[i][0]), enc, sizeof enc);
		is_str(n >= 0 ? enc : NULL, vec[i][1], "encode \"%s\"", vec[i][0]);
		n = b64_decode(vec[i][1], strlen(vec[i][1]), back, sizeof back);
		ok(n == (long)strlen(vec[i][0]) && memcmp(back, vec[i][0], (size_t)n) == 0, "decode %s", vec[i][1]);
	}
	for (int i = 0; i < 300; i++)
		in[i] = (unsigned char)(i * 7 + 3);
	for (size_t n = 0; n <= sizeof in; n++) {
		long e = b64_encode(in, n, enc, sizeof enc), d = b64_decode(enc, (size_t)e, back, n);
		if (e != (long)B64_LEN(n) || d != (long)n || memcmp(in, back, n) != 0)
			good = 0;
	}
	ok(good, "round trip of every length 0-300, decoded into exactly its size");
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		is_int(b64_decode(bad[i], strlen(bad[i]), back, sizeof back), -1, "refused: \"%s\"", bad[i]);
	is_int(b64_decode("Zm9vYmFy", 8, back, 5), -1, "refused: no room for the bytes");
	is_int(b64_encode("foo", 3, enc, 4), -1, "refused: no room for the NUL");
	return done_testing();
}
