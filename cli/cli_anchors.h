/* cli_anchors — configs/anchors/a2.yaml built into the command (generated at configure time from
 * the file; see CMakeLists.txt), the default table of `cubesim validate`. */
#ifndef CLI_ANCHORS_H
#define CLI_ANCHORS_H

#include <stddef.h>

extern const unsigned char cli_anchors_a2[];
extern const size_t cli_anchors_a2_len;

#endif
