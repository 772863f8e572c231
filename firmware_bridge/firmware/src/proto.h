/* Dice tower protocol core: framing (COBS + CRC-16) and the device state machine.
 *
 * Plain C that also compiles as C++, with no I/O of its own: the platform supplies the hal_*
 * functions below (main_avr.c on the ATmega328P, the host tests on a PC). The wire format is
 * specified in docs/protocol.md and mirrored by firmware_bridge/protocol.py.
 */
#ifndef TOWER_PROTO_H
#define TOWER_PROTO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROTO_VERSION 1
#define FW_VERSION_MAJOR 1
#define FW_VERSION_MINOR 0

#define PROTO_MAX_PAYLOAD 64
#define PROTO_MAX_FRAME (2 + PROTO_MAX_PAYLOAD + 2)
#define PROTO_MAX_ENCODED (PROTO_MAX_FRAME + PROTO_MAX_FRAME / 254 + 1)

enum msg_type {
    MSG_HELLO = 0x01,
    MSG_PING = 0x02,
    MSG_ROLL = 0x03,
    MSG_SHOW_ROLL = 0x04,
    MSG_SET_LEDS = 0x05,
    MSG_SET_PLAYER = 0x06,
    MSG_CONFIG = 0x07,
    MSG_EVENT_BUTTON = 0x40,
    MSG_EVENT_DICE = 0x41,
    MSG_HEARTBEAT = 0x42,
    MSG_BOOT = 0x43,
    MSG_EVENT_ACK = 0x7E,
    MSG_REPLY_BIT = 0x80
};

enum status {
    ST_OK = 0,
    ST_BAD_ARGUMENT = 1,
    ST_NO_SESSION = 2,
    ST_UNKNOWN_COMMAND = 3,
    ST_BAD_VERSION = 4,
    ST_UNSUPPORTED = 5
};

enum dice_kind { DICE_TWO_D6 = 0, DICE_RESOURCE = 1, DICE_ONE_D6 = 2, DICE_KIND_COUNT = 3 };
enum display_kind { DISPLAY_NONE = 0, DISPLAY_7SEG_8 = 1, DISPLAY_MATRIX_8X8 = 2 };
enum button_mode { BUTTON_EVENT_ONLY = 0, BUTTON_ROLL = 1 };

/* Timing of the device side, in milliseconds. */
#define EVENT_RETRY_MS 50
#define HEARTBEAT_MS 1000
/* the host PINGs at least every second; three missed mean it is gone */
#define HOST_TIMEOUT_MS 3000
#define EVENT_QUEUE 4
#define EVENT_MAX_PAYLOAD 10 /* boot id, kind, count, six dice */

uint16_t proto_crc16(const uint8_t *data, uint16_t len, uint16_t crc);
/* Returns the encoded length; out must hold len + len / 254 + 1 bytes. No delimiter. */
uint16_t proto_cobs_encode(const uint8_t *in, uint16_t len, uint8_t *out);
/* Returns the decoded length, or -1 for a malformed block. out must hold len bytes. */
int16_t proto_cobs_decode(const uint8_t *in, uint16_t len, uint8_t *out);
/* Writes COBS(type seq payload crc) and the 0x00 delimiter; returns the byte count. */
uint16_t proto_build_frame(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t len,
                           uint8_t *out);

typedef struct {
    uint8_t type;
    uint8_t seq;
    uint8_t len;
    uint8_t payload[PROTO_MAX_PAYLOAD];
} frame_t;

/* Decodes one encoded frame (delimiter stripped). Returns 0, or -1 on bad COBS/CRC/length. */
int8_t proto_parse_frame(const uint8_t *enc, uint16_t len, frame_t *f);

typedef struct {
    uint8_t type;
    uint8_t seq;
    uint8_t len;
    uint8_t payload[EVENT_MAX_PAYLOAD];
} event_t;

typedef struct {
    /* session */
    uint8_t session_active;
    uint16_t session;
    /* idempotency: the reply to the last executed command, resent on a repeated seq */
    uint8_t has_last;
    uint8_t last_seq;
    uint8_t last_type;
    uint8_t last_reply_len;
    uint8_t last_reply[12];
    /* statistics reported by PING */
    uint16_t boot_id;
    uint16_t executed;
    uint16_t crc_errors;
    uint16_t duplicates;
    /* receiver */
    uint8_t rx[PROTO_MAX_ENCODED];
    uint8_t rx_len;
    uint8_t rx_overflow;
    /* reliable events, oldest first; only the head is on the wire */
    event_t events[EVENT_QUEUE];
    uint8_t n_events;
    uint8_t next_event_seq;
    uint32_t event_sent_ms;
    uint8_t event_sent;
    uint32_t last_tx_ms;
    uint32_t last_rx_ms;
    uint8_t host_present;
    /* what the button does */
    uint8_t button_mode;
    uint8_t button_kind;
} device_t;

/* ---- supplied by the platform ---- */
void hal_write(const uint8_t *data, uint16_t len);
uint32_t hal_millis(void);
uint16_t hal_n_leds(void);
uint8_t hal_n_player_leds(void);
uint8_t hal_display_kind(void);
/* fg for LEDs whose mask bit is set, bg for the others; mask holds (n_leds + 7) / 8 bytes */
void hal_set_leds(const uint8_t fg[3], const uint8_t bg[3], const uint8_t *mask);
void hal_set_player(uint8_t index, const uint8_t rgb[3]);
/* show dice on the display; a two-dice 7 starts the robber animation */
void hal_show_dice(uint8_t kind, uint8_t count, const uint8_t *values);
/* the host's heartbeat was lost (0) or is back (1): show the people at the table */
void hal_host_present(uint8_t present);

/* ---- the device ---- */
void device_init(device_t *d, uint16_t boot_id);
void device_rx_byte(device_t *d, uint8_t byte);
/* Retransmits the pending event and sends heartbeats; call often. */
void device_poll(device_t *d);
/* A debounced button press. */
void device_button(device_t *d);
/* Handles one decoded frame (exposed for the tests). */
void device_handle_frame(device_t *d, const frame_t *f);

#ifdef __cplusplus
}
#endif
#endif
