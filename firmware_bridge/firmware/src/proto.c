/* Dice tower protocol core; see proto.h and docs/protocol.md. */
#include "proto.h"

#include <string.h>

#include "dice.h"

uint16_t proto_crc16(const uint8_t *data, uint16_t len, uint16_t crc)
{
    for (uint16_t i = 0; i < len; i++) {
        crc ^= (uint16_t)data[i] << 8;
        for (uint8_t b = 0; b < 8; b++) {
            crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
        }
    }
    return crc;
}

uint16_t proto_cobs_encode(const uint8_t *in, uint16_t len, uint8_t *out)
{
    uint16_t code_at = 0;
    uint16_t o = 1;
    uint8_t code = 1;
    for (uint16_t i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
            continue;
        }
        out[o++] = in[i];
        if (++code == 0xFF) {
            out[code_at] = code;
            if (i == len - 1) {
                return o; /* a full block that ends the data needs no empty block after it */
            }
            code_at = o++;
            code = 1;
        }
    }
    out[code_at] = code;
    return o;
}

int16_t proto_cobs_decode(const uint8_t *in, uint16_t len, uint8_t *out)
{
    uint16_t i = 0;
    uint16_t o = 0;
    if (len == 0) {
        return -1;
    }
    while (i < len) {
        uint8_t code = in[i];
        if (code == 0 || (uint16_t)(i + code) > len) {
            return -1;
        }
        for (uint16_t k = i + 1; k < (uint16_t)(i + code); k++) {
            if (in[k] == 0) {
                return -1;
            }
            out[o++] = in[k];
        }
        i = (uint16_t)(i + code);
        if (code != 0xFF && i < len) {
            out[o++] = 0;
        }
    }
    return (int16_t)o;
}

uint16_t proto_build_frame(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t len,
                           uint8_t *out)
{
    uint8_t body[PROTO_MAX_FRAME];
    body[0] = type;
    body[1] = seq;
    memcpy(body + 2, payload, len);
    uint16_t crc = proto_crc16(body, (uint16_t)(len + 2), 0xFFFF);
    body[len + 2] = (uint8_t)(crc >> 8);
    body[len + 3] = (uint8_t)crc;
    uint16_t n = proto_cobs_encode(body, (uint16_t)(len + 4), out);
    out[n] = 0;
    return (uint16_t)(n + 1);
}

int8_t proto_parse_frame(const uint8_t *enc, uint16_t len, frame_t *f)
{
    uint8_t body[PROTO_MAX_ENCODED];
    if (len > PROTO_MAX_ENCODED) {
        return -1;
    }
    int16_t n = proto_cobs_decode(enc, len, body);
    if (n < 4 || n > PROTO_MAX_FRAME) {
        return -1;
    }
    uint16_t want = (uint16_t)((body[n - 2] << 8) | body[n - 1]);
    if (proto_crc16(body, (uint16_t)(n - 2), 0xFFFF) != want) {
        return -1;
    }
    f->type = body[0];
    f->seq = body[1];
    f->len = (uint8_t)(n - 4);
    memcpy(f->payload, body + 2, f->len);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

static void send(device_t *d, uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t len)
{
    uint8_t out[PROTO_MAX_ENCODED + 1];
    uint16_t n = proto_build_frame(type, seq, payload, len, out);
    hal_write(out, n);
    d->last_tx_ms = hal_millis();
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void device_init(device_t *d, uint16_t boot_id)
{
    memset(d, 0, sizeof *d);
    d->boot_id = boot_id;
    d->next_event_seq = 1;
    d->button_mode = BUTTON_ROLL;
    d->button_kind = DICE_TWO_D6;
    uint8_t p[2];
    put16(p, boot_id);
    send(d, MSG_BOOT, 0, p, 2);
}

static void queue_event(device_t *d, uint8_t type, const uint8_t *payload, uint8_t len)
{
    if (d->n_events == EVENT_QUEUE) {
        /* the host has been away for a while: the oldest press matters least */
        memmove(&d->events[0], &d->events[1], sizeof(event_t) * (EVENT_QUEUE - 1));
        d->n_events--;
        if (d->event_sent) {
            d->event_sent = 0;
        }
    }
    event_t *e = &d->events[d->n_events++];
    e->type = type;
    e->seq = d->next_event_seq;
    /* seq 0 marks unreliable frames (heartbeat, boot) */
    d->next_event_seq = (uint8_t)(d->next_event_seq == 255 ? 1 : d->next_event_seq + 1);
    e->len = len;
    memcpy(e->payload, payload, len);
}

static void send_head_event(device_t *d)
{
    event_t *e = &d->events[0];
    send(d, e->type, e->seq, e->payload, e->len);
    d->event_sent = 1;
    d->event_sent_ms = hal_millis();
}

void device_poll(device_t *d)
{
    uint32_t now = hal_millis();
    if (d->host_present && (uint32_t)(now - d->last_rx_ms) >= HOST_TIMEOUT_MS) {
        d->host_present = 0;
        hal_host_present(0);
    }
    /* events wait for a session: only its HELLO tells the host which boot their seqs belong
     * to, so it can tell a resent event from a new one */
    if (d->session_active && d->n_events &&
        (!d->event_sent || (uint32_t)(now - d->event_sent_ms) >= EVENT_RETRY_MS)) {
        send_head_event(d);
    } else if ((uint32_t)(now - d->last_tx_ms) >= HEARTBEAT_MS) {
        uint8_t p[3];
        put16(p, d->boot_id);
        p[2] = d->session_active;
        send(d, MSG_HEARTBEAT, 0, p, 3);
    }
}

static void roll_and_show(uint8_t kind, uint8_t *values, uint8_t *count)
{
    *count = dice_roll(kind, values);
    hal_show_dice(kind, *count, values);
}

void device_button(device_t *d)
{
    /* events name the boot they belong to, so the host never confuses event seq 1 of a new
     * boot with seq 1 of the last one */
    uint8_t p[EVENT_MAX_PAYLOAD];
    put16(p, d->boot_id);
    if (d->button_mode == BUTTON_ROLL) {
        uint8_t count;
        p[2] = d->button_kind;
        roll_and_show(d->button_kind, p + 4, &count);
        p[3] = count;
        queue_event(d, MSG_EVENT_DICE, p, (uint8_t)(4 + count));
    } else {
        queue_event(d, MSG_EVENT_BUTTON, p, 2);
    }
}

static uint8_t kind_supported(uint8_t kind) { return dice_count(kind) != 0; }

static uint8_t valid_dice(uint8_t kind, uint8_t count, const uint8_t *v)
{
    if (!kind_supported(kind) || count != dice_count(kind)) {
        return 0;
    }
    uint8_t low = kind == DICE_RESOURCE ? 0 : 1;
    for (uint8_t i = 0; i < count; i++) {
        if (v[i] < low || v[i] > low + 5) {
            return 0;
        }
    }
    return 1;
}

/* Runs a command that changes something; writes the reply payload and returns its length. */
static uint8_t execute(device_t *d, const frame_t *f, uint8_t *r)
{
    const uint8_t *p = f->payload;
    r[0] = ST_OK;
    switch (f->type) {
    case MSG_ROLL:
        if (f->len != 1) {
            r[0] = ST_BAD_ARGUMENT;
            return 1;
        }
        if (!kind_supported(p[0])) {
            r[0] = ST_UNSUPPORTED;
            return 1;
        }
        r[1] = p[0];
        roll_and_show(p[0], r + 3, &r[2]);
        return (uint8_t)(3 + r[2]);
    case MSG_SHOW_ROLL:
        if (f->len < 2 || f->len != 2 + p[1] || !valid_dice(p[0], p[1], p + 2)) {
            r[0] = ST_BAD_ARGUMENT;
            return 1;
        }
        hal_show_dice(p[0], p[1], p + 2);
        return 1;
    case MSG_SET_LEDS:
        if (f->len != 6 + (hal_n_leds() + 7) / 8) {
            r[0] = ST_BAD_ARGUMENT;
            return 1;
        }
        hal_set_leds(p, p + 3, p + 6);
        return 1;
    case MSG_SET_PLAYER:
        if (f->len != 4 || p[0] > 7) {
            r[0] = ST_BAD_ARGUMENT;
            return 1;
        }
        hal_set_player(p[0], p + 1);
        return 1;
    case MSG_CONFIG:
        if (f->len != 2 || p[0] > BUTTON_ROLL || !kind_supported(p[1])) {
            r[0] = ST_BAD_ARGUMENT;
            return 1;
        }
        d->button_mode = p[0];
        d->button_kind = p[1];
        return 1;
    default:
        r[0] = ST_UNKNOWN_COMMAND;
        return 1;
    }
}

void device_handle_frame(device_t *d, const frame_t *f)
{
    uint8_t r[16];
    uint8_t reply = (uint8_t)(f->type | MSG_REPLY_BIT);

    if (f->type == MSG_EVENT_ACK) {
        if (d->n_events && d->event_sent && d->events[0].seq == f->seq) {
            memmove(&d->events[0], &d->events[1], sizeof(event_t) * (EVENT_QUEUE - 1));
            d->n_events--;
            d->event_sent = 0;
        }
        return;
    }
    if (f->type & MSG_REPLY_BIT || (f->type >= MSG_EVENT_BUTTON && f->type <= MSG_BOOT)) {
        return; /* frames only a device sends: an echo or line noise, never answered */
    }
    if (f->type == MSG_HELLO) {
        r[0] = ST_OK;
        if (f->len != 3 || f->payload[0] != PROTO_VERSION) {
            r[0] = ST_BAD_VERSION;
            r[1] = PROTO_VERSION;
            send(d, reply, f->seq, r, 2);
            return;
        }
        uint16_t session = (uint16_t)(f->payload[1] | (f->payload[2] << 8));
        /* a repeated HELLO of the same session must not forget the last command, or a
         * late duplicate of it would run twice */
        if (!d->session_active || session != d->session) {
            d->session_active = 1;
            d->session = session;
            d->has_last = 0;
        }
        r[1] = PROTO_VERSION;
        r[2] = FW_VERSION_MAJOR;
        r[3] = FW_VERSION_MINOR;
        put16(r + 4, hal_n_leds());
        r[6] = hal_n_player_leds();
        r[7] = hal_display_kind();
        r[8] = (1 << DICE_TWO_D6) | (1 << DICE_RESOURCE) | (1 << DICE_ONE_D6);
        put16(r + 9, d->boot_id);
        send(d, reply, f->seq, r, 11);
        return;
    }
    if (f->type == MSG_PING) {
        r[0] = ST_OK;
        put16(r + 1, d->boot_id);
        put16(r + 3, d->executed);
        put16(r + 5, d->crc_errors);
        put16(r + 7, d->duplicates);
        send(d, reply, f->seq, r, 9);
        return;
    }
    if (!d->session_active) {
        r[0] = ST_NO_SESSION;
        send(d, reply, f->seq, r, 1);
        return;
    }
    if (d->has_last && f->seq == d->last_seq && f->type == d->last_type) {
        d->duplicates++;
        send(d, reply, f->seq, d->last_reply, d->last_reply_len);
        return;
    }
    uint8_t n = execute(d, f, r);
    d->executed++;
    d->has_last = 1;
    d->last_seq = f->seq;
    d->last_type = f->type;
    d->last_reply_len = n;
    memcpy(d->last_reply, r, n);
    send(d, reply, f->seq, r, n);
}

void device_rx_byte(device_t *d, uint8_t byte)
{
    if (byte != 0) {
        if (d->rx_len < sizeof d->rx) {
            d->rx[d->rx_len++] = byte;
        } else {
            d->rx_overflow = 1;
        }
        return;
    }
    if (d->rx_len == 0 && !d->rx_overflow) {
        return; /* back-to-back delimiters carry nothing */
    }
    frame_t f;
    if (d->rx_overflow || proto_parse_frame(d->rx, d->rx_len, &f) != 0) {
        d->crc_errors++;
    } else {
        d->last_rx_ms = hal_millis();
        if (!d->host_present) {
            d->host_present = 1;
            hal_host_present(1);
        }
        device_handle_frame(d, &f);
    }
    d->rx_len = 0;
    d->rx_overflow = 0;
}
