/* Dice tower firmware for the ATmega328P at 16 MHz (Arduino Uno/Nano class).
 *
 * Wiring (Arduino pin names in brackets):
 *   PD0/PD1 [D0/D1]   UART to the USB bridge, 115200 baud 8N1
 *   PD4     [D4]      roll button to ground (internal pull-up), debounced in software; not
 *                     on INT0/INT1, whose low level would count as a pending interrupt
 *   PD6     [D6]      WS2812 data: N_LEDS board LEDs, then N_PLAYER_LEDS turn indicator LEDs
 *   PB3/PB5 [D11/D13] MOSI/SCK to a MAX7219 driving 8 seven-segment digits
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
static uint8_t digits[8];              /* segment patterns, leftmost digit first */
static uint32_t animation_end;
static uint32_t animation_next;
static uint8_t animation_step;

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

/* MAX7219 no-decode segment bits: DP A B C D E F G = bit 7..0 */
static const uint8_t DIGIT_SEGMENTS[10] = {0x7E, 0x30, 0x6D, 0x79, 0x33,
                                           0x5B, 0x5F, 0x70, 0x7F, 0x7B};
#define SEG_P 0x67
#define SEG_DASH 0x01
#define SEG_BLANK 0x00

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

static void display_flush(const uint8_t *pattern)
{
    for (uint8_t i = 0; i < 8; i++) {
        max7219_write((uint8_t)(8 - i), pattern[i]); /* digit register 8 is the leftmost */
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
    for (uint8_t i = 0; i < 8; i++) {
        digits[i] = SEG_BLANK;
    }
    digits[0] = SEG_DASH;
    digits[1] = SEG_DASH;
    display_flush(digits);
}

uint8_t hal_display_kind(void) { return DISPLAY_7SEG_8; }

void hal_host_present(uint8_t present)
{
    /* no host: the player digits show "--" until it is back (rolls still work locally) */
    static uint8_t saved[2] = {SEG_DASH, SEG_DASH};
    if (present) {
        digits[0] = saved[0];
        digits[1] = saved[1];
    } else {
        saved[0] = digits[0];
        saved[1] = digits[1];
        digits[0] = SEG_DASH;
        digits[1] = SEG_DASH;
    }
    if (!animation_end) {
        display_flush(digits);
    }
}

void hal_set_player(uint8_t index, const uint8_t rgb[3])
{
    for (uint16_t i = N_LEDS; i < N_TOTAL_LEDS; i++) {
        put_led(i, rgb);
    }
    ws2812_show();
    digits[0] = SEG_P;
    digits[1] = DIGIT_SEGMENTS[index + 1];
    if (!animation_end) {
        display_flush(digits);
    }
}

void hal_show_dice(uint8_t kind, uint8_t count, const uint8_t *values)
{
    /* layout: P n _ d d d d d for five dice or fewer, all eight for six resource dice */
    for (uint8_t i = 2; i < 8; i++) {
        digits[i] = SEG_BLANK;
    }
    if (kind == DICE_TWO_D6) {
        uint8_t sum = (uint8_t)(values[0] + values[1]);
        digits[3] = DIGIT_SEGMENTS[values[0]];
        digits[4] = SEG_DASH;
        digits[5] = DIGIT_SEGMENTS[values[1]];
        digits[6] = sum >= 10 ? DIGIT_SEGMENTS[sum / 10] : SEG_BLANK;
        digits[7] = DIGIT_SEGMENTS[sum % 10];
        if (sum == 7) {
            animation_end = hal_millis() + SEVEN_ANIMATION_MS;
            animation_next = 0;
            return;
        }
    } else {
        for (uint8_t i = 0; i < count; i++) {
            /* resource faces 0..5 show as 1..6, d6 values as themselves */
            digits[8 - count + i] = DIGIT_SEGMENTS[kind == DICE_RESOURCE ? values[i] + 1
                                                                         : values[i]];
        }
    }
    animation_end = 0;
    display_flush(digits);
}

/* The robber's 7: a segment chases round the dice digits, then the result stays. */
static void animate(void)
{
    static const uint8_t ring[6] = {0x40, 0x20, 0x10, 0x08, 0x04, 0x02};
    if (!animation_end) {
        return;
    }
    uint32_t now = hal_millis();
    if ((int32_t)(now - animation_end) >= 0) {
        animation_end = 0;
        display_flush(digits);
        return;
    }
    if ((int32_t)(now - animation_next) < 0) {
        return;
    }
    animation_next = now + ANIMATION_STEP_MS;
    uint8_t frame[8];
    for (uint8_t i = 0; i < 8; i++) {
        frame[i] = i < 2 ? digits[i] : ring[(animation_step + i) % 6];
    }
    animation_step++;
    display_flush(frame);
}

/* ---------------- start-up and main loop ---------------- */

static void hardware_init(void)
{
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
    dice_init(((uint32_t)boots << 16) ^ entropy);
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
