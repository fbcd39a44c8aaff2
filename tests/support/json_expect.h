/* json_expect — json_check for tests that only go on with a value: each function fails the
 * running test (naming the path, or where and why parsing failed) where json_check would return
 * NULL or false. */
#ifndef TESTS_JSON_EXPECT_H
#define TESTS_JSON_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "support/json_check.h"

/* jc_parse / jc_parse_file; free with jc_free. */
jc_doc *je_parse(const char *text, size_t len);
jc_doc *je_parse_file(const char *path);

/* jc_get_u64 / jc_get_number / jc_get_string of the value at path below v. */
uint64_t je_u64(const jc_value *v, const char *path);
double je_number(const jc_value *v, const char *path);
const char *je_string(const jc_value *v, const char *path);

#endif
