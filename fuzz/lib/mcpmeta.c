/* The 2026-07-28 header and metadata code: header values decode or are
 * refused, an encoded value decodes to itself, and the checks of headers
 * against a body never crash on any body. The first byte splits the input
 * into a header value and a JSON-RPC body. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcpmeta.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char enc[MCPMETA_HDR_MAX + 1], dec[MCPMETA_NAME_MAX + 1], name[MCPMETA_NAME_MAX + 1];
	static struct rpc_toks tk;
	struct rpc_msg m;
	struct buf out = { 0 };
	const char *hv = (const char *)data + 1, *body, *why;
	size_t hn, bn;
	int e, d;

	if (size < 1)
		return 0;
	hn = (size_t)data[0] < size - 1 ? (size_t)data[0] : size - 1;
	body = hv + hn;
	bn = size - 1 - hn;
	(void)mcpmeta_hdr_decode(hv, hn, dec, sizeof dec);
	if ((e = mcpmeta_hdr_encode(hv, hn, enc, sizeof enc)) >= 0) {
		d = mcpmeta_hdr_decode(enc, (size_t)e, dec, sizeof dec);
		if (d != (int)hn || memcmp(dec, hv, hn) != 0)
			abort();	/* what is encoded must come back the same */
	}
	if (rpc_parse(body, bn, &tk, &m) == 0 && m.kind != RPC_RESPONSE) {
		(void)mcpmeta_name(&m, name, sizeof name);
		(void)mcpmeta_check(&m, data[0] & 1, hv, hn, 1, hv, hn, data[0] & 2, &why);
		(void)mcpmeta_version_check(&m, hv, hn, 1, &why);
		if (m.kind == RPC_REQUEST && mcpmeta_add(&m, &out) == 0 && memchr(out.p, '\n', out.len))
			abort();	/* one line */
	}
	buf_free(&out);
	return 0;
}
