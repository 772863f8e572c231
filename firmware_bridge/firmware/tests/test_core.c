/* Host tests of the firmware's protocol core and dice (built with g++ by the Makefile).
 *
 * Usage: test_core VECTORS_FILE [ROLLS]
 * Checks the shared test vectors, the device state machine through its public entry points,
 * and the fairness of the dice: an exhaustive proof that rejection sampling has no modulo bias
 * and a chi-square test over ROLLS (default 100000) rolls. Prints one "chi2 ..." line per
 * chi-square test so the Python tests can check the statistics too. Exit code 0 = all passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/dice.h"
#include "../src/proto.h"

static int failures = 0;
#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);           \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

/* ---------------- fake platform ---------------- */
static uint8_t wire[4096];
static uint16_t wire_len;
static uint32_t now_ms;
static uint8_t leds_fg[3], leds_bg[3], leds_mask[8];
static int leds_calls;
static uint8_t shown_kind, shown_count, shown_values[6];
static int show_calls;
static uint8_t player_index, player_rgb[3];
static int host_present = -1;

void hal_write(const uint8_t *data, uint16_t len)
{
    if (wire_len + len <= sizeof wire) {
        memcpy(wire + wire_len, data, len);
        wire_len = (uint16_t)(wire_len + len);
    }
}
uint32_t hal_millis(void) { return now_ms; }
uint16_t hal_n_leds(void) { return 60; }
uint8_t hal_n_player_leds(void) { return 6; }
uint8_t hal_display_kind(void) { return DISPLAY_7SEG_8; }
void hal_set_leds(const uint8_t fg[3], const uint8_t bg[3], const uint8_t *mask)
{
    memcpy(leds_fg, fg, 3);
    memcpy(leds_bg, bg, 3);
    memcpy(leds_mask, mask, 8);
    leds_calls++;
}
void hal_set_player(uint8_t index, const uint8_t rgb[3])
{
    player_index = index;
    memcpy(player_rgb, rgb, 3);
}
void hal_show_dice(uint8_t kind, uint8_t count, const uint8_t *values)
{
    shown_kind = kind;
    shown_count = count;
    memcpy(shown_values, values, count);
    show_calls++;
}

void hal_host_present(uint8_t present) { host_present = present; }

/* ---------------- helpers ---------------- */
static int parse_hex(const char *s, uint8_t *out, int cap)
{
    if (strcmp(s, "-") == 0) {
        return 0;
    }
    int n = (int)strlen(s);
    if (n % 2 || n / 2 > cap) {
        return -1;
    }
    for (int i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) {
            return -1;
        }
        out[i] = (uint8_t)v;
    }
    return n / 2;
}

/* Takes the frames the device wrote so far; returns how many were decoded into out. */
static int take_frames(frame_t *out, int cap)
{
    int n = 0;
    uint16_t start = 0;
    for (uint16_t i = 0; i < wire_len; i++) {
        if (wire[i] == 0) {
            if (n < cap && proto_parse_frame(wire + start, (uint16_t)(i - start), &out[n]) == 0) {
                n++;
            }
            start = (uint16_t)(i + 1);
        }
    }
    wire_len = 0;
    return n;
}

static void send_to(device_t *d, uint8_t type, uint8_t seq, const uint8_t *p, uint8_t len)
{
    uint8_t buf[PROTO_MAX_ENCODED + 1];
    uint16_t n = proto_build_frame(type, seq, p, len, buf);
    for (uint16_t i = 0; i < n; i++) {
        device_rx_byte(d, buf[i]);
    }
}

/* Sends a command and returns its single reply in *r. */
static int command(device_t *d, uint8_t type, uint8_t seq, const uint8_t *p, uint8_t len,
                   frame_t *r)
{
    frame_t fr[4];
    wire_len = 0;
    send_to(d, type, seq, p, len);
    int n = take_frames(fr, 4);
    if (n != 1) {
        return -1;
    }
    *r = fr[0];
    return 0;
}

static void hello(device_t *d, uint16_t session, frame_t *r)
{
    uint8_t p[3] = {PROTO_VERSION, (uint8_t)session, (uint8_t)(session >> 8)};
    CHECK(command(d, MSG_HELLO, 0, p, 3, r) == 0);
}

/* ---------------- tests ---------------- */
static void test_vectors(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        failures++;
        return;
    }
    char line[2048];
    int counted = 0;
    while (fgets(line, sizeof line, f)) {
        char kind[16], a[700], b[700], c[700], w[700];
        static uint8_t x[400], y[400], z[400];
        if (line[0] == '#' || sscanf(line, "%15s", kind) != 1) {
            continue;
        }
        counted++;
        if (strcmp(kind, "crc") == 0 && sscanf(line, "%*s %699s %699s", a, b) == 2) {
            int n = parse_hex(a, x, sizeof x);
            unsigned want;
            sscanf(b, "%x", &want);
            CHECK(n >= 0 && proto_crc16(x, (uint16_t)n, 0xFFFF) == want);
        } else if (strcmp(kind, "cobs") == 0 && sscanf(line, "%*s %699s %699s", a, b) == 2) {
            int n = parse_hex(a, x, sizeof x);
            int m = parse_hex(b, y, sizeof y);
            uint16_t e = proto_cobs_encode(x, (uint16_t)n, z);
            CHECK(e == m && memcmp(z, y, (size_t)m) == 0);
            CHECK(proto_cobs_decode(y, (uint16_t)m, z) == n && memcmp(z, x, (size_t)n) == 0);
        } else if (strcmp(kind, "frame") == 0 &&
                   sscanf(line, "%*s %699s %699s %699s %699s", a, b, c, w) == 4) {
            unsigned type;
            sscanf(a, "%x", &type);
            int seq = atoi(b);
            int n = parse_hex(c, x, sizeof x);
            int m = parse_hex(w, y, sizeof y);
            uint16_t e = proto_build_frame((uint8_t)type, (uint8_t)seq, x, (uint8_t)n, z);
            CHECK(e == m && memcmp(z, y, (size_t)m) == 0);
            frame_t fr;
            CHECK(proto_parse_frame(y, (uint16_t)(m - 1), &fr) == 0);
            CHECK(fr.type == type && fr.seq == seq && fr.len == n &&
                  memcmp(fr.payload, x, (size_t)n) == 0);
        } else if (strcmp(kind, "bad") == 0 && sscanf(line, "%*s %699s", a) == 1) {
            int m = parse_hex(a, y, sizeof y);
            frame_t fr;
            CHECK(m > 0 && proto_parse_frame(y, (uint16_t)(m - 1), &fr) != 0);
        } else {
            fprintf(stderr, "unreadable vector: %s", line);
            failures++;
        }
    }
    fclose(f);
    CHECK(counted > 20);
}

static void test_session_and_idempotency(void)
{
    device_t d;
    frame_t r;
    now_ms = 0;
    wire_len = 0;
    device_init(&d, 0x1234);
    frame_t boot[2];
    CHECK(take_frames(boot, 2) == 1 && boot[0].type == MSG_BOOT);

    /* nothing but HELLO/PING before a session */
    uint8_t kind = DICE_TWO_D6;
    CHECK(command(&d, MSG_ROLL, 1, &kind, 1, &r) == 0);
    CHECK(r.type == (MSG_ROLL | MSG_REPLY_BIT) && r.payload[0] == ST_NO_SESSION);
    CHECK(show_calls == 0);

    uint8_t old_version[3] = {PROTO_VERSION + 1, 0, 0};
    CHECK(command(&d, MSG_HELLO, 0, old_version, 3, &r) == 0);
    CHECK(r.payload[0] == ST_BAD_VERSION && r.payload[1] == PROTO_VERSION);

    hello(&d, 77, &r);
    CHECK(r.type == (MSG_HELLO | MSG_REPLY_BIT) && r.len == 11 && r.payload[0] == ST_OK);
    CHECK(r.payload[4] == 60 && r.payload[5] == 0 && r.payload[6] == 6);
    CHECK(r.payload[9] == 0x34 && r.payload[10] == 0x12);

    CHECK(command(&d, MSG_ROLL, 1, &kind, 1, &r) == 0);
    CHECK(r.payload[0] == ST_OK && r.payload[2] == 2 && r.len == 5);
    CHECK(show_calls == 1);
    frame_t first = r;
    /* the same seq again: the cached answer, no second roll */
    CHECK(command(&d, MSG_ROLL, 1, &kind, 1, &r) == 0);
    CHECK(r.len == first.len && memcmp(r.payload, first.payload, r.len) == 0);
    CHECK(show_calls == 1 && d.executed == 1 && d.duplicates == 1);
    /* a duplicate HELLO of the same session must keep that memory */
    hello(&d, 77, &r);
    CHECK(command(&d, MSG_ROLL, 1, &kind, 1, &r) == 0);
    CHECK(show_calls == 1 && d.duplicates == 2);
    /* a new seq rolls again */
    CHECK(command(&d, MSG_ROLL, 2, &kind, 1, &r) == 0);
    CHECK(show_calls == 2 && d.executed == 2);
    /* a new session forgets the last seq */
    hello(&d, 78, &r);
    CHECK(command(&d, MSG_ROLL, 2, &kind, 1, &r) == 0);
    CHECK(show_calls == 3 && d.executed == 3);

    /* PING reports the counters */
    CHECK(command(&d, MSG_PING, 9, 0, 0, &r) == 0);
    CHECK(r.len == 9 && r.payload[3] == 3 && r.payload[7] == 2);

    /* a damaged frame is counted and not answered */
    uint8_t buf[PROTO_MAX_ENCODED + 1];
    uint16_t n = proto_build_frame(MSG_ROLL, 3, &kind, 1, buf);
    buf[2] ^= 0x10;
    wire_len = 0;
    for (uint16_t i = 0; i < n; i++) {
        device_rx_byte(&d, buf[i]);
    }
    CHECK(wire_len == 0 && d.crc_errors == 1 && show_calls == 3);
}

static void test_commands(void)
{
    device_t d;
    frame_t r;
    device_init(&d, 1);
    hello(&d, 5, &r);

    uint8_t bad_kind = 9;
    CHECK(command(&d, MSG_ROLL, 1, &bad_kind, 1, &r) == 0 && r.payload[0] == ST_UNSUPPORTED);
    uint8_t resource = DICE_RESOURCE;
    CHECK(command(&d, MSG_ROLL, 2, &resource, 1, &r) == 0 && r.payload[0] == ST_OK);
    CHECK(r.payload[2] == 6);
    for (int i = 0; i < 6; i++) {
        CHECK(r.payload[3 + i] <= 5);
    }

    uint8_t show[4] = {DICE_TWO_D6, 2, 3, 4};
    CHECK(command(&d, MSG_SHOW_ROLL, 3, show, 4, &r) == 0 && r.payload[0] == ST_OK);
    CHECK(shown_kind == DICE_TWO_D6 && shown_values[0] == 3 && shown_values[1] == 4);
    uint8_t bad_show[4] = {DICE_TWO_D6, 2, 7, 4};
    int before = show_calls;
    CHECK(command(&d, MSG_SHOW_ROLL, 4, bad_show, 4, &r) == 0);
    CHECK(r.payload[0] == ST_BAD_ARGUMENT && show_calls == before);

    uint8_t leds[6 + 8] = {255, 160, 0, 1, 2, 3, 0x81, 0, 0, 0, 0, 0, 0, 0x08};
    CHECK(command(&d, MSG_SET_LEDS, 5, leds, sizeof leds, &r) == 0 && r.payload[0] == ST_OK);
    CHECK(leds_calls == 1 && leds_fg[1] == 160 && leds_bg[2] == 3 && leds_mask[0] == 0x81);
    CHECK(command(&d, MSG_SET_LEDS, 6, leds, 7, &r) == 0 && r.payload[0] == ST_BAD_ARGUMENT);
    CHECK(leds_calls == 1);

    uint8_t player[4] = {2, 0, 0, 255};
    CHECK(command(&d, MSG_SET_PLAYER, 7, player, 4, &r) == 0 && r.payload[0] == ST_OK);
    CHECK(player_index == 2 && player_rgb[2] == 255);
    uint8_t cfg_bad[2] = {3, 0};
    CHECK(command(&d, MSG_CONFIG, 8, cfg_bad, 2, &r) == 0 && r.payload[0] == ST_BAD_ARGUMENT);
    CHECK(command(&d, 0x20, 9, 0, 0, &r) == 0 && r.payload[0] == ST_UNKNOWN_COMMAND);
}

static void test_events(void)
{
    device_t d;
    frame_t r, fr[4];
    now_ms = 1000;
    device_init(&d, 1);

    /* button in roll mode: a dice event, held until a session exists, then resent until
     * acknowledged */
    device_button(&d);
    wire_len = 0;
    device_poll(&d);
    CHECK(take_frames(fr, 4) == 0);
    hello(&d, 5, &r);
    device_poll(&d);
    CHECK(take_frames(fr, 4) == 1 && fr[0].type == MSG_EVENT_DICE && fr[0].seq == 1);
    CHECK(fr[0].payload[0] == 1 && fr[0].payload[1] == 0); /* boot id */
    CHECK(fr[0].payload[2] == DICE_TWO_D6 && fr[0].payload[3] == 2 && fr[0].len == 6);
    device_poll(&d);
    CHECK(take_frames(fr, 4) == 0); /* not yet due */
    now_ms += EVENT_RETRY_MS;
    device_poll(&d);
    CHECK(take_frames(fr, 4) == 1 && fr[0].seq == 1);
    send_to(&d, MSG_EVENT_ACK, 2, 0, 0); /* wrong seq: ignored */
    CHECK(d.n_events == 1);
    send_to(&d, MSG_EVENT_ACK, 1, 0, 0);
    CHECK(d.n_events == 0);

    /* event-only mode */
    uint8_t cfg[2] = {BUTTON_EVENT_ONLY, DICE_TWO_D6};
    CHECK(command(&d, MSG_CONFIG, 1, cfg, 2, &r) == 0 && r.payload[0] == ST_OK);
    int before = show_calls;
    device_button(&d);
    wire_len = 0;
    device_poll(&d);
    CHECK(take_frames(fr, 4) == 1 && fr[0].type == MSG_EVENT_BUTTON && fr[0].seq == 2);
    CHECK(fr[0].len == 2);
    CHECK(show_calls == before);

    /* heartbeat after a quiet second */
    send_to(&d, MSG_EVENT_ACK, 2, 0, 0);
    wire_len = 0;
    now_ms += HEARTBEAT_MS;
    device_poll(&d);
    CHECK(take_frames(fr, 4) == 1 && fr[0].type == MSG_HEARTBEAT && fr[0].seq == 0);
    CHECK(fr[0].payload[2] == 1);

    /* the host went quiet: the tower says so once, and again when it is back */
    CHECK(host_present == 1);
    now_ms += HOST_TIMEOUT_MS;
    device_poll(&d);
    CHECK(host_present == 0);
    host_present = -1;
    device_poll(&d);
    CHECK(host_present == -1);
    CHECK(command(&d, MSG_PING, 3, 0, 0, &r) == 0);
    CHECK(host_present == 1);
}

static uint8_t counting_byte;
static uint8_t next_counting_byte(void) { return counting_byte++; }

static void test_no_modulo_bias(void)
{
    /* Over one full cycle of all 256 byte values, every outcome must come up equally often:
     * this proves the rejection limit, independent of any generator. */
    for (unsigned n = 1; n <= 255; n++) {
        unsigned hist[256] = {0};
        unsigned accepted = 256 - 256 % n;
        counting_byte = 0;
        for (unsigned i = 0; i < accepted; i++) {
            hist[dice_uniform_from((uint8_t)n, next_counting_byte)]++;
        }
        /* the draws above consumed exactly the accepted bytes 0..accepted-1 */
        CHECK(counting_byte == (uint8_t)accepted);
        for (unsigned v = 0; v < n; v++) {
            CHECK(hist[v] == accepted / n);
        }
    }
}

static double chi2(const unsigned *observed, const double *expected, int k)
{
    double s = 0;
    for (int i = 0; i < k; i++) {
        double diff = observed[i] - expected[i];
        s += diff * diff / expected[i];
    }
    return s;
}

static void test_fair_dice(unsigned rolls)
{
    /* critical values of the chi-square distribution at p = 0.001 */
    const double crit5 = 20.515, crit10 = 29.588;
    unsigned faces[2][6] = {{0}}, sums[11] = {0}, resource[6] = {0};
    dice_init(0xC0FFEEUL);
    for (unsigned i = 0; i < rolls; i++) {
        uint8_t v[6];
        CHECK(dice_roll(DICE_TWO_D6, v) == 2);
        faces[0][v[0] - 1]++;
        faces[1][v[1] - 1]++;
        sums[v[0] + v[1] - 2]++;
        /* stir like the firmware does, with a predictable value, to show mixing keeps it fair */
        if (i % 97 == 0) {
            dice_mix(i);
        }
        CHECK(dice_roll(DICE_RESOURCE, v) == 6);
        resource[v[i % 6]]++;
    }
    double e6[6], e11[11];
    for (int i = 0; i < 6; i++) {
        e6[i] = rolls / 6.0;
    }
    for (int s = 2; s <= 12; s++) {
        e11[s - 2] = rolls * (6 - (s > 7 ? s - 7 : 7 - s)) / 36.0;
    }
    double c1 = chi2(faces[0], e6, 6), c2 = chi2(faces[1], e6, 6);
    double cs = chi2(sums, e11, 11), cr = chi2(resource, e6, 6);
    printf("chi2 die1 df=5 %.3f\nchi2 die2 df=5 %.3f\nchi2 sum df=10 %.3f\n", c1, c2, cs);
    printf("chi2 resource df=5 %.3f\n", cr);
    CHECK(c1 < crit5 && c2 < crit5 && cs < crit10 && cr < crit5);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_core VECTORS_FILE [ROLLS]\n");
        return 2;
    }
    unsigned rolls = argc > 2 ? (unsigned)strtoul(argv[2], 0, 10) : 100000u;
    test_vectors(argv[1]);
    test_session_and_idempotency();
    test_commands();
    test_events();
    test_no_modulo_bias();
    test_fair_dice(rolls);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all passed\n");
    return 0;
}
