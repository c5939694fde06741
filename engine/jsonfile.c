/* One JSON file reader for config.json, tokenizer_config.json and the
 * server's --config, so a damaged file gets the same message in each. */
#include <stdlib.h>
#include <cjson/cJSON.h>

#include "fileio.h"
#include "jsonfile.h"

int el__json_parse_file(const char *path, size_t max_bytes, cJSON **out, el_error *err) {
  char *text;
  size_t len;
  int rc = el__read_file(path, max_bytes, &text, &len, err);
  if (rc) return rc;
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (!root) {
    size_t at = end && end >= text ? (size_t)(end - text) : 0;
    free(text);
    return el_error_set(err, EL_EFORMAT, "%s: invalid JSON near byte %zu", path, at);
  }
  /* Anything but whitespace after the value is an error too. */
  while (end && end < text + len && (*end == ' ' || *end == '\n' || *end == '\r' || *end == '\t'))
    end++;
  if (end && end < text + len) {
    size_t at = (size_t)(end - text);
    free(text);
    cJSON_Delete(root);
    return el_error_set(err, EL_EFORMAT, "%s: unexpected data after the JSON value at byte %zu",
                        path, at);
  }
  free(text);
  *out = root;
  return EL_OK;
}
