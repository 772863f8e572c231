/* Hardware in the loop without hardware: runs the tower firmware ELF in simavr.
 *
 * Usage: tower_sim FIRMWARE.elf LINK
 *
 * The firmware's UART appears on a pseudo-terminal; LINK is made a symbolic link to it, so a
 * host driver opens LINK like a USB serial port (it stays the same path across "unplug"/"plug").
 * The simulated MCU runs in step with the wall clock: when the firmware sleeps, the harness
 * waits for the time it would sleep or until the host sends bytes, whichever is first.
 *
 * Commands, one per line on standard input; each is answered by one line on standard output:
 *   press | release     drive the button pin (PD4) low | high            -> ok
 *   leds                the last WS2812 frame decoded from the PD6 waveform -> leds HEX (GRB)
 *   disp                the 8 MAX7219 digit registers, leftmost first     -> disp HEX
 *   reset               reset the MCU, as the reset button would          -> ok
 *   unplug              close the terminal and power the MCU off          -> ok
 *   plug                new terminal behind LINK, MCU powered on (reset)  -> ok
 *   quit                                                                  -> bye
 * "ready" is printed once LINK exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <simavr/avr_ioport.h>
#include <simavr/avr_spi.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_cycle_timers.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_io.h>
#include <simavr/sim_irq.h>

#define MAX_LED_BYTES 1024
/* WS2812 timing at 16 MHz: a high pulse longer than this many cycles is a 1 bit */
#define WS_ONE_CYCLES 8
/* a low line for longer than 50 us latches the frame */
#define WS_LATCH_CYCLES 800

static avr_t *avr;
static const char *link_path;
static int master_fd = -1;
static int slave_fd = -1; /* held open so the master never sees a hang-up between clients */
static int powered = 1;

static uint8_t host_in[8192];
static size_t host_in_len;
static int uart_xon = 1;
static avr_irq_t *uart_input_irq;

static uint8_t led_bytes[MAX_LED_BYTES];
static size_t led_len;
static uint8_t led_cur, led_bits, led_level;
static avr_cycle_count_t led_rise, led_fall;

static uint8_t spi_prev, spi_last, load_level = 1;
static uint8_t digit_regs[8];

static long long wall_origin_us; /* wall-clock time at which the simulated clock read zero */

static long long wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static char cmd_buf[256];
static size_t cmd_len;

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void open_terminal(void)
{
    master_fd = posix_openpt(O_RDWR | O_NOCTTY);
    if (master_fd < 0 || grantpt(master_fd) || unlockpt(master_fd)) {
        die("posix_openpt");
    }
    const char *name = ptsname(master_fd);
    slave_fd = open(name, O_RDWR | O_NOCTTY);
    if (slave_fd < 0) {
        die("open pty slave");
    }
    struct termios t;
    tcgetattr(slave_fd, &t);
    cfmakeraw(&t);
    tcsetattr(slave_fd, TCSANOW, &t);
    fcntl(master_fd, F_SETFL, O_NONBLOCK);
    unlink(link_path);
    if (symlink(name, link_path)) {
        die("symlink");
    }
}

static avr_cycle_count_t rx_timer(avr_t *a, avr_cycle_count_t when, void *param);
static int rx_timer_armed;

static void close_terminal(void)
{
    unlink(link_path);
    close(master_fd);
    close(slave_fd);
    master_fd = slave_fd = -1;
    host_in_len = 0;
    avr_cycle_timer_cancel(avr, rx_timer, NULL);
    rx_timer_armed = 0;
}

/* ---- UART ---- */

/* simavr hands input bytes to the UART as fast as they are raised; a real line delivers one
 * every 10 bit times. The bytes from the host are fed at that pace from a cycle timer, so the
 * firmware sees the timing of a real 115200 baud line. */
#define CYCLES_PER_BYTE (16000000ULL * 10 / 115200)

static avr_cycle_count_t rx_timer(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a;
    (void)param;
    if (!uart_xon || host_in_len == 0) {
        rx_timer_armed = 0;
        return 0;
    }
    uint8_t b = host_in[0];
    memmove(host_in, host_in + 1, --host_in_len);
    avr_raise_irq(uart_input_irq, b); /* may signal XOFF synchronously */
    if (host_in_len == 0) {
        rx_timer_armed = 0;
        return 0;
    }
    return when + CYCLES_PER_BYTE;
}

static void feed_uart(void)
{
    if (!rx_timer_armed && uart_xon && host_in_len) {
        rx_timer_armed = 1;
        avr_cycle_timer_register(avr, CYCLES_PER_BYTE, rx_timer, NULL);
    }
}

static void uart_out_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t b = (uint8_t)value;
    if (master_fd >= 0) {
        /* like a real USB bridge, bytes nobody reads are lost */
        if (write(master_fd, &b, 1) < 0 && errno != EAGAIN) {
            perror("pty write");
        }
    }
}

static void uart_xon_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_xon = 1;
    feed_uart();
}

static void uart_xoff_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_xon = 0;
}

/* ---- WS2812 decoder on PD6 ---- */

static void led_pin_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t level = value & 1;
    if (level == led_level) {
        return;
    }
    led_level = level;
    avr_cycle_count_t now = avr->cycle;
    if (level) {
        if (now - led_fall > WS_LATCH_CYCLES) {
            led_len = 0; /* a new frame starts after a latch */
            led_bits = 0;
            led_cur = 0;
        }
        led_rise = now;
        return;
    }
    led_cur = (uint8_t)((led_cur << 1) | (now - led_rise > WS_ONE_CYCLES));
    if (++led_bits == 8) {
        if (led_len < MAX_LED_BYTES) {
            led_bytes[led_len++] = led_cur;
        }
        led_bits = 0;
        led_cur = 0;
    }
    led_fall = now;
}

/* ---- MAX7219 on SPI, latched by PB2 ---- */

static void spi_out_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    spi_prev = spi_last;
    spi_last = (uint8_t)value;
}

static void load_pin_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t level = value & 1;
    if (level && !load_level && spi_prev >= 1 && spi_prev <= 8) {
        digit_regs[8 - spi_prev] = spi_last;
    }
    load_level = level;
}

/* ---- control ---- */

static void print_hex(const char *tag, const uint8_t *p, size_t n)
{
    printf("%s ", tag);
    for (size_t i = 0; i < n; i++) {
        printf("%02x", p[i]);
    }
    printf(n ? "\n" : "-\n");
}

static void set_button(int level)
{
    /* simavr re-applies pull-ups to input pins on every PORTD write (the LED line is on PORTD),
     * which would release a held button: declare the pin's external level as well */
    avr_ioport_external_t ext;
    ext.name = 'D';
    ext.mask = 1 << 4;
    ext.value = (unsigned)(level << 4);
    avr_ioctl(avr, AVR_IOCTL_IOPORT_SET_EXTERNAL('D'), &ext);
    avr_irq_t *pin = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 4);
    /* an IRQ ignores a value equal to its last one, but a reset clears the pin register
     * behind its back: toggle through the other level (in zero time, so the firmware never
     * samples it) to make the level stick */
    avr_raise_irq(pin, (uint32_t)!level);
    avr_raise_irq(pin, (uint32_t)level);
}

static int run_command(const char *cmd)
{
    if (!strcmp(cmd, "press")) {
        set_button(0);
    } else if (!strcmp(cmd, "release")) {
        set_button(1);
    } else if (!strcmp(cmd, "leds")) {
        print_hex("leds", led_bytes, led_len);
        fflush(stdout);
        return 1;
    } else if (!strcmp(cmd, "disp")) {
        print_hex("disp", digit_regs, 8);
        fflush(stdout);
        return 1;
    } else if (!strcmp(cmd, "reset")) {
        avr_reset(avr);
        rx_timer_armed = 0; /* a reset clears every cycle timer */
        set_button(1);
    } else if (!strcmp(cmd, "unplug")) {
        if (powered) {
            close_terminal();
            powered = 0;
        }
    } else if (!strcmp(cmd, "plug")) {
        if (!powered) {
            open_terminal();
            avr_reset(avr);
            rx_timer_armed = 0;
            set_button(1);
            powered = 1;
            /* the MCU was off meanwhile: the simulated clock resumes from now */
            wall_origin_us = wall_us() - (long long)(avr->cycle * 1000000ULL / avr->frequency);
        }
    } else if (!strcmp(cmd, "quit")) {
        printf("bye\n");
        fflush(stdout);
        return 0;
    } else {
        printf("error unknown command %s\n", cmd);
        fflush(stdout);
        return 1;
    }
    printf("ok\n");
    fflush(stdout);
    return 1;
}

/* Waits up to timeout_us for host bytes or a command; returns 0 once "quit" was read. */
static int service(long timeout_us)
{
    struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {master_fd, POLLIN, 0}};
    int n = master_fd >= 0 ? 2 : 1;
    struct timespec ts = {timeout_us / 1000000, (timeout_us % 1000000) * 1000};
    if (ppoll(fds, (nfds_t)n, &ts, NULL) <= 0) {
        return 1;
    }
    if (n == 2 && (fds[1].revents & POLLIN)) {
        ssize_t got = read(master_fd, host_in + host_in_len, sizeof host_in - host_in_len);
        if (got > 0) {
            host_in_len += (size_t)got;
            feed_uart();
        }
    }
    if (fds[0].revents & (POLLIN | POLLHUP)) {
        char c;
        while (read(STDIN_FILENO, &c, 1) == 1) {
            if (c == '\n') {
                cmd_buf[cmd_len] = 0;
                cmd_len = 0;
                if (!run_command(cmd_buf)) {
                    return 0;
                }
                break; /* one command per wake-up keeps the MCU running between them */
            }
            if (cmd_len < sizeof cmd_buf - 1) {
                cmd_buf[cmd_len++] = c;
            }
        }
        if (fds[0].revents & POLLHUP && !(fds[0].revents & POLLIN)) {
            return 0; /* the controlling process went away */
        }
    }
    return 1;
}

static int quit_requested;

/* Keeps the simulated clock in step with the wall clock: the firmware's sleep is spent waiting
 * for the host (so bytes wake it at once) only as long as simulated time is ahead. Summing
 * the requested sleeps instead would fall behind, since each wait costs more than asked. */
static void sleep_hook(avr_t *a, avr_cycle_count_t how_long)
{
    long long sim_us = (long long)((a->cycle + how_long) * 1000000ULL / a->frequency);
    long long ahead = sim_us - (wall_us() - wall_origin_us);
    if (ahead < -50000) {
        /* far behind (a busy host machine): slip rather than race to catch up */
        wall_origin_us -= -ahead;
        ahead = 0;
    }
    /* no timer pending makes how_long huge: look at the host at least every 10 ms anyway */
    if (!service(ahead <= 0 ? 0 : ahead > 10000 ? 10000 : (long)ahead)) {
        quit_requested = 1;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tower_sim FIRMWARE.elf LINK\n");
        return 2;
    }
    link_path = argv[2];
    /* the pacing waits are often shorter than the kernel's default 50 us timer slack */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw)) {
        fprintf(stderr, "tower_sim: cannot read %s\n", argv[1]);
        return 2;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "tower_sim: simavr lacks the atmega328p\n");
        return 1;
    }
    avr_init(avr);
    avr_load_firmware(avr, &fw);
    avr->frequency = 16000000;
    avr->sleep = sleep_hook;
    avr->log = 0;

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    uart_input_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_out_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xoff_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 6), led_pin_hook,
                            NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_SPI_GETIRQ(0), SPI_IRQ_OUTPUT),
                            spi_out_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 2), load_pin_hook,
                            NULL);
    set_button(1);
    open_terminal();
    wall_origin_us = wall_us();
    printf("ready\n");
    fflush(stdout);

    for (;;) {
        if (!powered) {
            if (!service(100000)) {
                break;
            }
            continue;
        }
        for (int i = 0; i < 2000 && !quit_requested; i++) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "tower_sim: firmware stopped (state %d)\n", state);
                close_terminal();
                return 1;
            }
        }
        if (quit_requested || !service(0)) {
            break;
        }
    }
    if (master_fd >= 0) {
        close_terminal();
    }
    return 0;
}
