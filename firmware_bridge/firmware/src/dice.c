/* Fair dice for the tower.
 *
 * The generator is Bob Jenkins' small noncryptographic PRNG ("jsf32", public domain), chosen
 * because it passes the usual statistical batteries with 16 bytes of state and only 32-bit adds,
 * xors and rotations, which the AVR does cheaply. Its state is stirred with timer captures taken
 * at moments nobody controls (UART bytes, watchdog ticks, button edges), so rolls cannot be
 * predicted from the power-on state alone.
 */
#include "dice.h"

typedef struct {
    uint32_t a, b, c, d;
} jsf_t;

static jsf_t state;

static uint32_t rot32(uint32_t x, uint8_t k) { return (x << k) | (x >> (32 - k)); }

static uint32_t jsf_next(void)
{
    uint32_t e = state.a - rot32(state.b, 27);
    state.a = state.b ^ rot32(state.c, 17);
    state.b = state.c + state.d;
    state.c = state.d + e;
    state.d = e + state.a;
    return state.d;
}

void dice_init(uint32_t seed)
{
    state.a = 0xf1ea5eedUL;
    state.b = state.c = state.d = seed;
    for (uint8_t i = 0; i < 20; i++) {
        (void)jsf_next();
    }
}

void dice_mix(uint32_t entropy)
{
    state.d ^= entropy;
    /* a few rounds so one captured value influences every state word */
    for (uint8_t i = 0; i < 4; i++) {
        (void)jsf_next();
    }
}

uint8_t dice_random_byte(void) { return (uint8_t)(jsf_next() >> 24); }

uint8_t dice_uniform_from(uint8_t n, uint8_t (*next_byte)(void))
{
    /* 256 % n bytes at the top would make the low results more likely: reject them */
    uint16_t limit = (uint16_t)(256u - (256u % n));
    for (;;) {
        uint8_t b = next_byte();
        if (b < limit) {
            return (uint8_t)(b % n);
        }
    }
}

uint8_t dice_uniform(uint8_t n) { return dice_uniform_from(n, dice_random_byte); }

uint8_t dice_count(uint8_t kind)
{
    switch (kind) {
    case 0: return 2; /* two d6 */
    case 1: return 6; /* resource dice of the dice game */
    case 2: return 1; /* one d6 */
    default: return 0;
    }
}

uint8_t dice_roll(uint8_t kind, uint8_t *values)
{
    uint8_t count = dice_count(kind);
    /* resource dice report the face index 0..5, numbered dice 1..6 */
    uint8_t offset = kind == 1 ? 0 : 1;
    for (uint8_t i = 0; i < count; i++) {
        values[i] = (uint8_t)(dice_uniform(6) + offset);
    }
    return count;
}
