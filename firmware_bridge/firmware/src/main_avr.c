/* Dice tower firmware for the ATmega328P at 16 MHz (Arduino Uno/Nano class).
 *
 * Wiring (Arduino pin names in brackets):
 *   PD0/PD1 [D0/D1]   UART to the USB bridge, 115200 baud 8N1
 *   PD4     [D4]      roll button to ground (internal pull-up), debounced in software; not
 *                     on INT0/INT1, whose low level would count as a pending interrupt
 *   PD6     [D6]      WS2812 data: N_LEDS board LEDs, then N_PLAYER_LEDS turn indicator LEDs
 *   PB3/PB5 [D11/D13] MOSI/SCK to a MAX7219 driving 8 seven-segment digits, or an 8x8
 *                     LED matrix when built with TOWER_DISPLAY=matrix
 *   PB2     [D10]     MAX7219 LOAD
 *
 * Everything protocol-related lives in proto.c; this file is the hardware: timers, UART, LEDs,
 * display, button and the entropy that feeds the dice.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <util/delay.h>

#include "dice.h"
#include "proto.h"

#ifndef N_LEDS
#define N_LEDS 90 /* 30 hexes (5-6 player frame) x 3 LEDs */
#endif
#ifndef N_PLAYER_LEDS
#define N_PLAYER_LEDS 6
#endif
#define N_TOTAL_LEDS (N_LEDS + N_PLAYER_LEDS)

#define BAUD_UBRR 16 /* 115200 baud with U2X at 16 MHz, as the Arduino core does */
#define DEBOUNCE_MS 20
#define SEVEN_ANIMATION_MS 1500
#define ANIMATION_STEP_MS 60

static device_t device;
static volatile uint32_t millis_count;
static volatile uint8_t button_pressed;
static volatile uint32_t entropy;
static volatile uint8_t entropy_fresh;

static uint8_t rx_ring[128];
static volatile uint8_t rx_head;
static uint8_t rx_tail;

static uint8_t leds[N_TOTAL_LEDS * 3]; /* GRB, the order WS2812 expects */

/* ---------------- time, entropy, button ---------------- */

static void stir(uint16_t sample)
{
    /* rotate-and-xor keeps older samples in play until the main loop mixes them */
    entropy = ((entropy << 5) | (entropy >> 27)) ^ sample;
    entropy_fresh = 1;
}

ISR(TIMER0_COMPA_vect)
{
    static uint8_t stable_for;
    static uint8_t last_raw = 1;
    static uint8_t debounced = 1;
    millis_count++;
    uint8_t raw = (PIND >> PD4) & 1;
    if (raw != last_raw) {
        last_raw = raw;
        stable_for = 0;
        stir(TCNT1); /* the moment a finger touches the button is unpredictable */
    } else if (stable_for < DEBOUNCE_MS) {
        stable_for++;
    } else if (raw != debounced) {
        debounced = raw;
        if (!raw) {
            button_pressed = 1;
        }
    }
}

/* The watchdog runs from its own RC oscillator, so Timer1 (the crystal) sampled at its ticks
 * carries the jitter between the two clocks. */
ISR(WDT_vect) { stir(TCNT1); }

ISR(USART_RX_vect)
{
    uint8_t b = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) % sizeof rx_ring);
    if (next != rx_tail) {
        rx_ring[rx_head] = b;
        rx_head = next;
    }
    stir(TCNT1);
}

uint32_t hal_millis(void)
{
    uint32_t m;
    uint8_t sreg = SREG;
    cli();
    m = millis_count;
    SREG = sreg;
    return m;
}

/* ---------------- UART ---------------- */

void hal_write(const uint8_t *data, uint16_t len)
{
    for (uint16_t i = 0; i < len; i++) {
        while (!(UCSR0A & (1 << UDRE0))) {
        }
        UDR0 = data[i];
    }
}

/* ---------------- WS2812 ---------------- */

/* One byte, MSB first, at 16 MHz: a bit is 20 cycles (1.25 us); a 1 stays high about 11
 * cycles (0.69 us), a 0 about 4 (0.25 us). Called with interrupts off. */
static inline void ws2812_byte(uint8_t b)
{
    uint8_t n = 8;
    asm volatile("1:\n\t"
                 "sbi %[port], %[bit]\n\t"
                 "nop\n\t"
                 "sbrs %[b], 7\n\t"
                 "cbi %[port], %[bit]\n\t"
                 "lsl %[b]\n\t"
                 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
                 "cbi %[port], %[bit]\n\t"
                 "nop\n\tnop\n\t"
                 "dec %[n]\n\t"
                 "brne 1b\n\t"
                 : [b] "+r"(b), [n] "+r"(n)
                 : [port] "I"(_SFR_IO_ADDR(PORTD)), [bit] "I"(PD6));
}

static void ws2812_show(void)
{
    const uint8_t *p = leds;
    for (uint16_t i = 0; i < N_TOTAL_LEDS; i++, p += 3) {
        /* interrupts stay off for one LED (30 us) only: a UART byte takes 87 us, so the
         * receive interrupt still runs between LEDs and no byte is lost */
        uint8_t sreg = SREG;
        cli();
        ws2812_byte(p[0]);
        ws2812_byte(p[1]);
        ws2812_byte(p[2]);
        SREG = sreg;
    }
    _delay_us(300); /* latch: WS2812B needs the line low for 280 us */
}

static void put_led(uint16_t i, const uint8_t rgb[3])
{
    leds[i * 3] = rgb[1];
    leds[i * 3 + 1] = rgb[0];
    leds[i * 3 + 2] = rgb[2];
}

uint16_t hal_n_leds(void) { return N_LEDS; }
uint8_t hal_n_player_leds(void) { return N_PLAYER_LEDS; }

void hal_set_leds(const uint8_t fg[3], const uint8_t bg[3], const uint8_t *mask)
{
    for (uint16_t i = 0; i < N_LEDS; i++) {
        put_led(i, (mask[i >> 3] >> (i & 7)) & 1 ? fg : bg);
    }
    ws2812_show();
}

/* ---------------- MAX7219 display ---------------- */

/* One MAX7219 drives either eight 7-segment digits (the default) or an 8x8 LED matrix
 * (make TOWER_DISPLAY=matrix); its eight registers hold the digits' segments or the matrix
 * rows. The picture is composed from what the tower shows (player, host, dice), never edited
 * in place. */
/* numbers, not the enum's names: the preprocessor cannot see enums */
#define DISPLAY_KIND_7SEG 1
#define DISPLAY_KIND_MATRIX 2
_Static_assert(DISPLAY_KIND_7SEG == DISPLAY_7SEG_8, "display kinds out of step with proto.h");
_Static_assert(DISPLAY_KIND_MATRIX == DISPLAY_MATRIX_8X8, "display kinds out of step");
#ifndef DISPLAY_KIND
#define DISPLAY_KIND DISPLAY_KIND_7SEG
#endif

#define NO_PLAYER 0xFF
static uint8_t player_shown = NO_PLAYER;
static uint8_t host_here; /* 0 until the host speaks, and again after HOST_TIMEOUT_MS */
static uint8_t dice_kind_shown = 0xFF;
static uint8_t dice_count_shown;
static uint8_t dice_shown[6];
static uint32_t animation_end;
static uint32_t animation_next;
static uint8_t animation_step;

static void max7219_write(uint8_t reg, uint8_t value)
{
    PORTB &= (uint8_t)~(1 << PB2);
    SPDR = reg;
    while (!(SPSR & (1 << SPIF))) {
    }
    SPDR = value;
    while (!(SPSR & (1 << SPIF))) {
    }
    PORTB |= (1 << PB2); /* the rising LOAD edge latches the word */
}

static void display_flush(const uint8_t *regs)
{
    for (uint8_t i = 0; i < 8; i++) {
        /* 7-segment: register 8 is the leftmost digit; matrix: register 8 is the bottom row,
         * so regs[] reads left to right or top to bottom */
        max7219_write((uint8_t)(8 - i), regs[i]);
    }
}

#if DISPLAY_KIND == DISPLAY_KIND_7SEG

/* MAX7219 no-decode segment bits: DP A B C D E F G = bit 7..0 */
static const uint8_t DIGIT_SEGMENTS[10] = {0x7E, 0x30, 0x6D, 0x79, 0x33,
                                           0x5B, 0x5F, 0x70, 0x7F, 0x7B};
#define SEG_P 0x67
#define SEG_DASH 0x01

/* P n _ d1 - d2 s s for two dice; the dice right-aligned otherwise; "--" without a host */
static void compose(uint8_t *out)
{
    for (uint8_t i = 0; i < 8; i++) {
        out[i] = 0;
    }
    if (host_here && player_shown != NO_PLAYER) {
        out[0] = SEG_P;
        out[1] = DIGIT_SEGMENTS[player_shown + 1];
    } else {
        out[0] = out[1] = SEG_DASH;
    }
    if (dice_kind_shown == DICE_TWO_D6) {
        uint8_t sum = (uint8_t)(dice_shown[0] + dice_shown[1]);
        out[3] = DIGIT_SEGMENTS[dice_shown[0]];
        out[4] = SEG_DASH;
        out[5] = DIGIT_SEGMENTS[dice_shown[1]];
        out[6] = sum >= 10 ? DIGIT_SEGMENTS[sum / 10] : 0;
        out[7] = DIGIT_SEGMENTS[sum % 10];
    } else if (dice_kind_shown != 0xFF) {
        for (uint8_t i = 0; i < dice_count_shown; i++) {
            /* resource faces 0..5 show as 1..6, d6 values as themselves */
            uint8_t v = dice_kind_shown == DICE_RESOURCE ? dice_shown[i] + 1 : dice_shown[i];
            out[8 - dice_count_shown + i] = DIGIT_SEGMENTS[v];
        }
    }
}

/* the robber's 7: a segment chases round the dice digits */
static void animation_frame(uint8_t *out, uint8_t step)
{
    static const uint8_t ring[6] = {0x40, 0x20, 0x10, 0x08, 0x04, 0x02};
    compose(out);
    for (uint8_t i = 2; i < 8; i++) {
        out[i] = ring[(step + i) % 6];
    }
}

#elif DISPLAY_KIND == DISPLAY_KIND_MATRIX

/* 3x5 digits, one row per byte, bit 2 = left column */
static const uint8_t FONT[10][5] = {
    {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
    {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
};

/* bit 7 of a row is the left column */
static void put_digit(uint8_t *rows, uint8_t digit, uint8_t column)
{
    for (uint8_t r = 0; r < 5; r++) {
        rows[r] |= (uint8_t)(FONT[digit][r] << (5 - column));
    }
}

static uint8_t bar(uint8_t n) { return (uint8_t)(0xFF00u >> n); }

/* rows 0-4 the sum (or the one die), rows 6 and 7 each die as a bar; six resource dice as six
 * bars of face+1; the right column counts the player (1..8 from the top), dotted without a
 * host */
static void compose(uint8_t *out)
{
    for (uint8_t i = 0; i < 8; i++) {
        out[i] = 0;
    }
    if (dice_kind_shown == DICE_TWO_D6) {
        uint8_t sum = (uint8_t)(dice_shown[0] + dice_shown[1]);
        if (sum >= 10) {
            put_digit(out, sum / 10, 0);
        }
        put_digit(out, sum % 10, 4);
        out[6] = bar(dice_shown[0]);
        out[7] = bar(dice_shown[1]);
    } else if (dice_kind_shown == DICE_ONE_D6) {
        put_digit(out, dice_shown[0], 4);
    } else if (dice_kind_shown == DICE_RESOURCE) {
        for (uint8_t i = 0; i < 6; i++) {
            out[i] = bar(dice_shown[i] + 1);
        }
    }
    for (uint8_t r = 0; r < 8; r++) {
        uint8_t on = host_here ? (player_shown != NO_PLAYER && r <= player_shown) : !(r & 1);
        out[r] = (uint8_t)((out[r] & 0xFE) | on);
    }
}

/* the robber's 7: a four-pixel snake runs round the border */
static void animation_frame(uint8_t *out, uint8_t step)
{
    for (uint8_t i = 0; i < 8; i++) {
        out[i] = 0;
    }
    for (uint8_t k = 0; k < 4; k++) {
        uint8_t p = (uint8_t)((step + k) % 28); /* 28 border pixels, clockwise from top left */
        if (p < 8) {
            out[0] |= (uint8_t)(0x80 >> p);
        } else if (p < 14) {
            out[p - 7] |= 0x01;
        } else if (p < 22) {
            out[7] |= (uint8_t)(0x01 << (p - 14));
        } else {
            out[28 - p] |= 0x80;
        }
    }
}

#else
#error "DISPLAY_KIND must be 1 (7-segment) or 2 (matrix)"
#endif

static void display_refresh(void)
{
    if (!animation_end) {
        uint8_t regs[8];
        compose(regs);
        display_flush(regs);
    }
}

static void display_init(void)
{
    DDRB |= (1 << PB2) | (1 << PB3) | (1 << PB5);
    PORTB |= (1 << PB2);
    SPCR = (1 << SPE) | (1 << MSTR) | (1 << SPR0);
    max7219_write(0x0F, 0); /* display test off */
    max7219_write(0x09, 0); /* no BCD decoding: raw segments */
    max7219_write(0x0A, 8); /* medium intensity */
    max7219_write(0x0B, 7); /* scan all 8 digits */
    max7219_write(0x0C, 1); /* leave shutdown */
    display_refresh();
}

uint8_t hal_display_kind(void) { return DISPLAY_KIND; }

void hal_host_present(uint8_t present)
{
    host_here = present;
    display_refresh();
}

void hal_set_player(uint8_t index, const uint8_t rgb[3])
{
    for (uint16_t i = N_LEDS; i < N_TOTAL_LEDS; i++) {
        put_led(i, rgb);
    }
    ws2812_show();
    player_shown = index;
    display_refresh();
}

void hal_show_dice(uint8_t kind, uint8_t count, const uint8_t *values)
{
    dice_kind_shown = kind;
    dice_count_shown = count;
    for (uint8_t i = 0; i < count; i++) {
        dice_shown[i] = values[i];
    }
    if (kind == DICE_TWO_D6 && values[0] + values[1] == 7) {
        animation_end = hal_millis() + SEVEN_ANIMATION_MS;
        animation_next = 0;
        return;
    }
    animation_end = 0;
    display_refresh();
}

/* Runs the 7's animation from the main loop; the result stands once it is over. */
static void animate(void)
{
    if (!animation_end) {
        return;
    }
    uint32_t now = hal_millis();
    if ((int32_t)(now - animation_end) >= 0) {
        animation_end = 0;
        display_refresh();
        return;
    }
    if ((int32_t)(now - animation_next) < 0) {
        return;
    }
    animation_next = now + ANIMATION_STEP_MS;
    uint8_t frame[8];
    animation_frame(frame, animation_step++);
    display_flush(frame);
}

/* ---------------- start-up and main loop ---------------- */

static void hardware_init(void)
{
    /* a watchdog reset leaves WDRF set, which would keep the watchdog resetting us */
    MCUSR = 0;
    /* UART */
    UCSR0A = (1 << U2X0);
    UBRR0 = BAUD_UBRR;
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    /* button with pull-up, LED data line low */
    DDRD &= (uint8_t)~(1 << PD4);
    PORTD |= (1 << PD4);
    DDRD |= (1 << PD6);
    PORTD &= (uint8_t)~(1 << PD6);
    /* Timer0: 1 kHz tick */
    TCCR0A = (1 << WGM01);
    TCCR0B = (1 << CS01) | (1 << CS00);
    OCR0A = 249;
    TIMSK0 = (1 << OCIE0A);
    /* Timer1 free running at the CPU clock, only read for jitter */
    TCCR1A = 0;
    TCCR1B = (1 << CS10);
    /* watchdog as an interrupt every 16 ms, never a reset */
    cli();
    wdt_reset();
    WDTCSR = (1 << WDCE) | (1 << WDE);
    WDTCSR = (1 << WDIE);
}

int main(void)
{
    hardware_init();
    display_init();
    sei();
    /* collect a few watchdog ticks of jitter before the first roll is possible */
    while (hal_millis() < 64) {
    }
    uint16_t boots = eeprom_read_word((uint16_t *)0);
    eeprom_update_word((uint16_t *)0, (uint16_t)(boots + 1));
    cli();
    uint32_t jitter = entropy;
    entropy_fresh = 0;
    sei();
    dice_init(((uint32_t)boots << 16) ^ jitter);
    for (uint16_t i = 0; i < N_TOTAL_LEDS; i++) {
        leds[i * 3] = leds[i * 3 + 1] = leds[i * 3 + 2] = 0;
    }
    ws2812_show();
    device_init(&device, (uint16_t)(boots ^ (uint16_t)dice_random_byte() << 8));

    set_sleep_mode(SLEEP_MODE_IDLE);
    for (;;) {
        while (rx_tail != rx_head) {
            uint8_t b = rx_ring[rx_tail];
            rx_tail = (uint8_t)((rx_tail + 1) % sizeof rx_ring);
            device_rx_byte(&device, b);
        }
        if (entropy_fresh) {
            cli();
            uint32_t e = entropy;
            entropy_fresh = 0;
            sei();
            dice_mix(e);
        }
        if (button_pressed) {
            button_pressed = 0;
            device_button(&device);
        }
        device_poll(&device);
        animate();
        /* sleep until the next interrupt (at most 1 ms away), unless work arrived meanwhile */
        cli();
        if (rx_tail == rx_head && !button_pressed && !entropy_fresh) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
