#!/usr/bin/env python3
"""Runs commands alternately for several rounds and prints median wall-time ratios, median CPU
time (user + system, of the command and every process it waited for; the user part also goes
to the @result line, as user_s) and peak RSS.
Usage: measure.py [--label TEXT] [--setup 'SHELL_CMD'] [--warmup] [--disk PATH] ROUNDS NAME_A 'SHELL_CMD_A' [NAME 'CMD']...
The first command is ours; the ratio is printed against each of the others (a single command is
measured alone, without ratio). The order of the
commands rotates every round. Each command runs under /bin/sh; peak RSS is the largest resident
set of any process in it (from wait4's rusage of the shell, which includes its waited-for
children). --setup runs before every timed command, untimed, with the command's NAME as $1 (for
example to move its previous output aside and flush dirty pages with sync). --warmup runs every
command once, untimed, before the rounds (the first run after a benchmark's set-up is slower,
whichever command it is). --label names the comparison in the @result line (when one benchmark
compares several things). --disk samples the free space of PATH's file system every 50 ms while a
command runs and reports the most it took at once (free space before − least free space during, in
MiB, the largest over the rounds): the disk a command needs at its peak, staging included (anything
else writing to that file system at the same time counts too). The same figures go out as one `@result` line (bench/result.py).
"""
import os, statistics, subprocess, sys, threading, time
import result

def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize

def run(cmd, disk=None):
    """Wall seconds, peak RSS (KiB), CPU seconds, with `disk` the most free space the command
    took from that file system at once (bytes; 0 without), and the CPU seconds spent in user space."""
    before, least, done = (free_bytes(disk), [free_bytes(disk)], threading.Event()) if disk else (0, [0], None)
    def sample():
        while not done.wait(0.05):
            least[0] = min(least[0], free_bytes(disk))
    sampler = threading.Thread(target=sample, daemon=True) if disk else None
    if sampler:
        sampler.start()
    start = time.perf_counter()
    p = subprocess.Popen(['/bin/sh', '-c', cmd])
    _, status, usage = os.wait4(p.pid, 0)
    elapsed = time.perf_counter() - start
    if sampler:
        done.set(); sampler.join()
        least[0] = min(least[0], free_bytes(disk))
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'command failed ({status}): {cmd}')
    return elapsed, usage.ru_maxrss, usage.ru_utime + usage.ru_stime, max(0, before - least[0]), usage.ru_utime  # KiB on Linux

def main():
    args = sys.argv[1:]
    label = ''
    if args[:1] == ['--label']:
        label, args = args[1] + ' ', args[2:]
    setup = None
    if args[:1] == ['--setup']:
        setup, args = args[1], args[2:]
    warmup = args[:1] == ['--warmup']
    if warmup:
        args = args[1:]
    disk = None
    if args[:1] == ['--disk']:
        disk, args = args[1], args[2:]
    if not args or not args[0].isdigit():
        sys.exit(__doc__)
    rounds = int(args[0])
    commands = list(zip(args[1::2], args[2::2]))
    if len(commands) < 1 or len(args) % 2 == 0:
        sys.exit(__doc__)
    times = {name: [] for name, _ in commands}
    rss = {name: 0 for name, _ in commands}
    cpu = {name: [] for name, _ in commands}
    user = {name: [] for name, _ in commands}
    peak_disk = {name: 0 for name, _ in commands}
    for name, cmd in commands if warmup else []:
        if setup:
            subprocess.run(['/bin/sh', '-c', setup, 'setup', name], check=True)
        t, _, _, _, _ = run(cmd)
        print(f'  warm-up: {name:<14} {t:7.2f} s (not counted)', flush=True)
    for r in range(rounds):
        k = r % len(commands)
        for name, cmd in commands[k:] + commands[:k]:
            if setup:
                subprocess.run(['/bin/sh', '-c', setup, 'setup', name], check=True)
            t, m, c, d, u = run(cmd, disk)
            times[name].append(t)
            cpu[name].append(c)
            user[name].append(u)
            rss[name] = max(rss[name], m)
            peak_disk[name] = max(peak_disk[name], d)
            print(f'  round {r + 1}: {name:<14} {t:7.2f} s  CPU {c:6.2f} s  peak RSS {m / 1024:7.1f} MiB'
                  + (f'  disk at peak {d / 2**20:9.1f} MiB' if disk else ''), flush=True)
    median = {name: statistics.median(times[name]) for name, _ in commands}
    ours = commands[0][0]
    print('median wall time: ' + ', '.join(f'{name} {median[name]:.2f} s' for name, _ in commands))
    for name, _ in commands[1:]:
        print(f'ratio {ours} / {name}: {median[ours] / median[name]:.2f}x')
    cpu_median = {name: statistics.median(cpu[name]) for name, _ in commands}
    print('median CPU time: ' + ', '.join(f'{name} {cpu_median[name]:.2f} s' for name, _ in commands))
    for name, _ in commands[1:]:
        if cpu_median[name] > 0:
            print(f'CPU ratio {ours} / {name}: {cpu_median[ours] / cpu_median[name]:.2f}x')
    print('peak RSS: ' + ', '.join(f'{name} {rss[name] / 1024:.1f} MiB' for name, _ in commands))
    if disk:
        print('disk at peak: ' + ', '.join(f'{name} {peak_disk[name] / 2**20:.1f} MiB' for name, _ in commands))
    result.emit(runners={label + name: {'wall_s': round(median[name], 4), 'cpu_s': round(cpu_median[name], 4),
                                'user_s': round(statistics.median(user[name]), 4),
                                'peak_rss_mib': round(rss[name] / 1024, 1), 'rounds': rounds}
                                | ({'disk_peak_mib': round(peak_disk[name] / 2**20, 1)} if disk else {}) for name, _ in commands},
                figures={f'{label}time {ours} / {name}': round(median[ours] / median[name], 4) for name, _ in commands[1:]})

if __name__ == '__main__':
    main()
