#include <errno.h>
#include <stdint.h>

#include "num.h"
#include "tap.h"

int
main(void)
{
	uint64_t v;
	int i;

	is_int(num_parse_u64("42", 0, 100, &v), 0, "42 parses");
	is_int(v, 42, "value 42");
	is_int(num_parse_u64("", 0, 100, &v), -1, "empty refused");
	is_int(num_parse_u64("-1", 0, 100, &v), -1, "sign refused");
	is_int(num_parse_u64(" 1", 0, 100, &v), -1, "space refused");
	is_int(num_parse_u64("101", 0, 100, &v), -1, "above max refused");
	is_int(errno, ERANGE, "ERANGE above max");
	is_int(num_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -1, "overflow refused");
	is_int(num_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0, "u64 max parses");
	is_int(num_parse_int("65535", 1, 65535, &i), 0, "port max");
	is_int(num_parse_int("0", 1, 65535, &i), -1, "port 0 refused");
	is_int(num_parse_duration("15m", &v), 0, "15m parses");
	is_int(v, 900, "15m is 900 s");
	is_int(num_parse_duration("7d", &v), 0, "7d parses");
	is_int(v, 7 * 86400, "7d in seconds");
	is_int(num_parse_duration("d", &v), -1, "unit alone refused");
	is_int(num_parse_duration("5x", &v), -1, "unknown unit refused");
	return done_testing();
}
