/* json_expect — base/cs_jsonr for tests that only go on with a value: each function fails the
 * running test (naming the path, or where and why parsing failed) where cs_jsonr would return
 * NULL or false. */
#ifndef TESTS_JSON_EXPECT_H
#define TESTS_JSON_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "base/cs_jsonr.h"

/* cs_jparse / cs_jparse_file; free with cs_jfree. */
cs_jdoc *je_parse(const char *text, size_t len);
cs_jdoc *je_parse_file(const char *path);

/* cs_jget_u64 / cs_jget_number / cs_jget_string of the value at path below v. */
uint64_t je_u64(const cs_jvalue *v, const char *path);
double je_number(const cs_jvalue *v, const char *path);
const char *je_string(const cs_jvalue *v, const char *path);

#endif
