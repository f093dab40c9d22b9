/* JPEG decoding with libjpeg(-turbo), as nvdla_runtime does it (see
 * image_jpeg.h).  libjpeg reports fatal errors through error_exit, which by
 * default ends the process: ours jumps back here instead. */
#include "image_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

struct jpeg_failure {
    struct jpeg_error_mgr mgr; /* first: libjpeg hands back a pointer to it */
    jmp_buf env;
    char warning[JMSG_LENGTH_MAX];
};

static void on_fatal_error(j_common_ptr info)
{
    struct jpeg_failure *f = (struct jpeg_failure *)info->err;
    longjmp(f->env, 1);
}

/* libjpeg's warnings (corrupt or truncated data it works around): keep the
 * first for the caller instead of printing it. */
static void on_warning(j_common_ptr info)
{
    struct jpeg_failure *f = (struct jpeg_failure *)info->err;
    if (!f->warning[0])
        (*info->err->format_message)(info, f->warning);
}

bool jpeg_looks_like(const uint8_t *buf, size_t len)
{
    return len >= 3 && buf[0] == 0xff && buf[1] == 0xd8 && buf[2] == 0xff;
}

/* The output the runtime asks for: one channel for grayscale, B, G, R for
 * colour; 0 for the colour spaces it refuses (CMYK, YCCK, unknown). */
static unsigned choose_output(struct jpeg_decompress_struct *info)
{
    switch (info->jpeg_color_space) {
    case JCS_GRAYSCALE:
        info->out_color_space = JCS_GRAYSCALE;
        return 1;
    case JCS_YCbCr:
    case JCS_RGB:
        info->out_color_space = JCS_EXT_BGR;
        return 3;
    default:
        return 0;
    }
}

bool jpeg_decode(const uint8_t *buf, size_t len, const char *name, struct host_image *img,
                 char *warn, size_t warnlen, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    if (warnlen)
        warn[0] = '\0';
    struct jpeg_decompress_struct info;
    struct jpeg_failure fail;
    uint8_t *volatile pixels = NULL;
    memset(&fail, 0, sizeof fail);
    info.err = jpeg_std_error(&fail.mgr);
    fail.mgr.error_exit = on_fatal_error;
    fail.mgr.output_message = on_warning;
    if (setjmp(fail.env)) {
        char msg[JMSG_LENGTH_MAX];
        (*fail.mgr.format_message)((j_common_ptr)&info, msg);
        snprintf(err, errlen, "%s: not a JPEG nvdla_runtime can read: %s", name, msg);
        jpeg_destroy_decompress(&info);
        free(pixels);
        return false;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, buf, (unsigned long)len);
    jpeg_read_header(&info, TRUE);
    unsigned channels = choose_output(&info);
    uint64_t bytes = (uint64_t)info.image_width * info.image_height * channels;
    if (!channels || bytes == 0 || bytes > HOST_IMAGE_MAX_BYTES) {
        if (!channels)
            snprintf(err, errlen,
                     "%s: JPEG colour space %d; nvdla_runtime reads grayscale, YCbCr and RGB "
                     "JPEGs only",
                     name, (int)info.jpeg_color_space);
        else
            snprintf(err, errlen, "%s: JPEG of %ux%u pixels (1 to %u bytes expected)", name,
                     info.image_width, info.image_height, HOST_IMAGE_MAX_BYTES);
        jpeg_destroy_decompress(&info);
        return false;
    }
    info.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&info);
    pixels = malloc((size_t)bytes);
    if (!pixels) {
        snprintf(err, errlen, "%s: out of memory", name);
        jpeg_destroy_decompress(&info);
        return false;
    }
    size_t row_bytes = (size_t)info.output_width * channels;
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + (size_t)info.output_scanline * row_bytes;
        jpeg_read_scanlines(&info, &row, 1);
    }
    uint32_t width = info.output_width, height = info.output_height;
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    if (fail.warning[0] && warnlen)
        snprintf(warn, warnlen, "%s: %s", name, fail.warning);
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->pixels = pixels;
    return true;
}
