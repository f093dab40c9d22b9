/* Fuzz harness: input images as --image and --input read them (JPEG, PGM,
 * PPM, DIMG, raw bytes) into the input tensor of the sample LeNet loadable,
 * and the DIMG reader on its own. */
#include <stddef.h>
#include <stdint.h>

#include "tensor/dimg.h"
#include "fuzz_util.h"
#include "tensor/input_tensor.h"
#include "loadable/loadable.h"
#include "runtime/runtime.h"
#include "sample/sample_net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct dla *dla;
static struct loadable *net;
static struct runtime rt;

static void prepare(void)
{
    uint8_t *buf;
    size_t len;
    char err[512];
    if (!sample_net_build("lenet", &buf, &len, err, sizeof err) ||
        !(net = loadable_parse(buf, len, "lenet", err, sizeof err))) {
        fprintf(stderr, "fuzz_image: %s\n", err);
        abort();
    }
    free(buf);
    struct dla_options opt = {.mem_budget = FUZZ_MEM_BUDGET};
    dla = dla_create(dla_config_default(), &opt);
    if (!dla || !runtime_load(&rt, net, dla, err, sizeof err)) {
        fprintf(stderr, "fuzz_image: %s\n", err);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dla)
        prepare();
    struct dimg_header h;
    const uint8_t *payload;
    size_t plen;
    char err[1024], warn[1024];
    (void)dimg_parse(data, size, "fuzz.dimg", &h, &payload, &plen, err, sizeof err);
    const char *dir = fuzz_scratch();
    fuzz_write(dir, "input", data, size);
    char path[512];
    snprintf(path, sizeof path, "%s/input", dir);
    struct input_opts image = {.image = path}, raw = {.raw = path};
    (void)input_tensor_fill(&rt, dla, &image, warn, sizeof warn, err, sizeof err);
    (void)input_tensor_fill(&rt, dla, &raw, warn, sizeof warn, err, sizeof err);
    return 0;
}
