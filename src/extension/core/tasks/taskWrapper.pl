# Vigil's task wrapper where there is a /usr/bin/perl (Linux, macOS): runs one background command in the
# process group the registry gave it, keeps the command's output in a bounded log and records how it
# ended. It does what taskWrapper.ts (the Node wrapper, used on Windows) does, in ~0.5 MB instead of ~7 MB.
#
#   perl taskWrapper.pl <task id> <log> <exit record> <half> <file> [<arg>...]
#
# * The command's stdout and stderr go to one pipe; only this wrapper writes the log. When the next
#   chunk would take `log` past <half> bytes, it renames `log` to `log.1` (replacing the older one)
#   and starts a new `log`: the two files never hold much more than 2 × <half> bytes, whether or not a
#   window follows the task. The host's follower only reads (it follows the rename).
# * SIGTERM/SIGINT/SIGHUP are counted, not ignored: the command (exec'd with default dispositions) dies
#   of them, and the wrapper lives to record it. SIGKILL of the group ends it too (the registry then
#   records the kill itself).
# * The exit record is the one exitRecord.ts describes, as the Node wrapper writes it: {exitCode, signal,
#   endedAt, droppedBytes, signalsSeen} in that order, with the exact wait status (a death by signal is
#   told from an exit code above 128). It is written after the log is fsynced, to a temporary file that
#   is fsynced, renamed into place, and its folder fsynced.
#   If it cannot be written (disk full) there is none, and the registry calls the task lost. Before those
#   fsyncs the same text goes to `<exit record>.notice` (renamed into place, not synced), which the host acts
#   on at once; the wrapper removes it once the record is durable (docs/background-tasks.md, "The exit notice").
# * After the command exited, output from processes it left behind is read for at most 250 ms (the
#   Node wrapper's grace); those processes are the registry's to kill.
# * On Linux (given the prctl number) the wrapper is the child subreaper of the command's tree: what the
#   command double-forks or `setsid`s away comes back to it instead of init, stays its descendant (so the
#   registry's kill finds it) and is reaped by it. Once a kill has begun (a TERM/INT/HUP was seen) the
#   wrapper, after recording the command's end, stays until every such process is gone, so that nothing
#   the kill is after escapes to init when the wrapper ends. Without a kill it ends as before: what the
#   command left running is then no longer the task's.
#
# Only modules of perl-base (Debian's Essential perl) are used, and only where the host gave no system
# call numbers (see %sys), once the command has ended, so that each waiting wrapper stays small (the test checks it under
# `perl -Mstrict -Mwarnings -c`; `use strict` at run time would cost every task 70 kB).

my ($task, $log, $exit_file, $half, $file, @args) = @ARGV;
die "usage: perl taskWrapper.pl <task id> <log> <exit record> <half> <file> [<arg>...]\n" unless defined $file && $half =~ /^[0-9]+$/ && $half > 0;
# One read never carries the log past its bound by more than this.
my $chunk = $half < 65536 ? $half : 65536;

my $signals = 0;
$SIG{$_} = sub { $signals += 1 } for qw(TERM INT HUP);
# A handler (not the default, which discards it) so that SIGCHLD interrupts the wait in select below.
$SIG{CHLD} = sub { };

my ($out, $size, $dropped) = (undef, 0, 0);

sub open_log {
  if (open($out, '>>', $log)) {
    binmode $out;
    $size = -s $out || 0;
  } else {
    undef $out;
    $size = 0;
  }
}

sub keep {
  my ($data) = @_;
  if ($size > 0 && $size + length($data) > $half) {
    close $out if $out;
    # A failed rename (the log was removed) still leaves a fresh log to write to.
    rename $log, "$log.1";
    open_log();
  }
  my $written = $out ? syswrite($out, $data) : undef;
  $written = 0 unless defined $written;
  $size += $written;
  # Disk full or log gone: this chunk is dropped, but the pipe keeps draining so the command never blocks.
  $dropped += length($data) - $written;
}

# Linux system call numbers from the host (VIGIL_WRAPPER_SYSCALLS="fsync=74,gettimeofday=96,prctl=157", from its
# table for this machine): with them the clock and fsync cost no module. Loading Time::HiRes and IO's XS
# took ~10 ms, on the path from the command's exit to its record; loaded up front they would cost every
# waiting task 0.6 MB. Removed from the environment, so the command never sees it.
my %sys;
for (split /,/, delete($ENV{VIGIL_WRAPPER_SYSCALLS}) // '') {
  $sys{$1} = $2 if /^(fsync|gettimeofday|prctl)=([0-9]{1,4})$/;
}

# prctl(PR_SET_CHILD_SUBREAPER = 36, 1), before the command starts. Not inherited by the command. Where it
# fails (an old kernel, a sandbox), orphans go to init as they did: the registry still kills the group.
syscall($sys{prctl}, 36, 1, 0, 0, 0) if $sys{prctl};

my $ended_at;
sub now_ms {
  if ($sys{gettimeofday}) {
    my $tv = "\0" x 16;
    if (syscall($sys{gettimeofday}, $tv, 0) == 0) {
      my ($seconds, $micros) = unpack('l!l!', $tv);
      return $seconds * 1000 + int($micros / 1000);
    }
  }
  return int(Time::HiRes::time() * 1000) if eval { require Time::HiRes; 1 };
  return time() * 1000;
}

# fsync of an open handle; IO's XS (IO::Handle::sync) only where the host gave no number.
sub sync_handle {
  my ($fh) = @_;
  return syscall($sys{fsync}, fileno($fh)) == 0 if $sys{fsync};
  require XSLoader;
  XSLoader::load('IO');
  return IO::Handle::sync($fh);
}

my ($status, $pid, $r, $w, $grace, $hard_stop);

# Reaps every child that ended: the command (its status is the record's) and orphans adopted as subreaper.
sub reap {
  while ((my $k = waitpid(-1, 1)) > 0) {    # 1: WNOHANG
    next unless $k == $pid && !defined $status;
    $status = $?;
    $ended_at = now_ms();
    ($grace, $hard_stop) = (0.25, time() + 2);
  }
}

open_log();
if (!pipe($r, $w) || !defined($pid = fork())) {
  keep("vigil: could not start the command: $!\n");
  $status = 127 << 8;
  $ended_at = now_ms();
} elsif ($pid == 0) {
  close $r;
  $SIG{$_} = 'DEFAULT' for qw(TERM INT HUP CHLD);
  open(STDIN, '<', '/dev/null');
  open(STDOUT, '>&', $w);
  open(STDERR, '>&', $w);
  close $w;
  { exec { $file } $file, @args; }
  print STDERR "vigil: could not start the command: $!\n";
  exit 127;
} else {
  close $w;
  my $rin = '';
  vec($rin, fileno($r), 1) = 1;
  for (;;) {
    reap();
    last if defined $status && ($grace <= 0 || time() >= $hard_stop);
    # While the command runs, the timeout only bounds a SIGCHLD that came just before select began.
    my $timeout = defined $status ? $grace : 1;
    my ($found, $left) = select(my $ready = $rin, undef, undef, $timeout);
    if (defined $status) {
      # select reports the time it did not wait (Linux); elsewhere the hard stop bounds the grace.
      $grace = defined $left && $left < $timeout ? $left : $grace - ($found > 0 ? 0 : $timeout);
    }
    next if $found <= 0;
    my $n = sysread($r, my $buf, $chunk);
    next unless defined $n;    # interrupted by a signal
    last if $n == 0;           # every writer closed the pipe
    keep($buf);
  }
  close $r;
  if (!defined $status) {
    waitpid($pid, 0);
    $status = $?;
    $ended_at = now_ms();
  }
}

my ($exit_code, $signal) = ($status >> 8, 'null');
if ($status & 127) {
  my $number = $status & 127;
  require Config;
  my @names = split q{ }, $Config::Config{sig_name} || $Config::Config{sig_name_init} || q{};
  $signal = '"SIG' . ($names[$number] || $number) . '"';
  $exit_code = 'null';
}

my $body = sprintf('{"exitCode":%s,"signal":%s,"endedAt":%d,"droppedBytes":%d,"signalsSeen":%d}', $exit_code, $signal, $ended_at, $dropped, $signals);
# The notice first (the record's text, renamed into place, not synced): the host stores the completion
# durably in its own outbox while the fsyncs below run. Removed once the record is durable.
my $notice = "$exit_file.notice";
if (open(my $early, '>', "$notice.tmp")) {
  binmode $early;
  my $written = syswrite($early, $body);
  close $early;
  unlink "$notice.tmp" unless defined $written && $written == length($body) && rename("$notice.tmp", $notice);
}
# The log first, then the record, each fsynced: a record that says "ended" never outlives its output.
# The log is written with syswrite only, and so is the record: nothing sits in a PerlIO buffer.
if ($out) {
  sync_handle($out);
  close $out;
}
my $tmp = "$exit_file.tmp";
my $ok = open(my $record, '>', $tmp);
if ($ok) {
  binmode $record;
  my $written = syswrite($record, $body);
  $ok = defined $written && $written == length($body) && sync_handle($record);
}
$ok = close($record) && $ok if $record;
if ($ok && rename($tmp, $exit_file)) {
  (my $dir = $exit_file) =~ s{/[^/]*$}{};
  # Some file systems refuse a folder fsync; the rename is still atomic there.
  if (open(my $folder, '<', $dir)) {
    sync_handle($folder);
    close $folder;
  }
  unlink $notice;
} else {
  unlink $tmp;
}
# A kill has begun: stay the subreaper of what the command left until the kill has ended it all.
if ($signals > 0) {
  1 while waitpid(-1, 0) > 0;
}
exit 0;
