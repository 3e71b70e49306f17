#!/usr/bin/env bash
# doc/man.sh HQSIM [VERSION] -- write the hqsim(1) manual page (roff) on
# stdout.  The description, files and environment are written here, from
# the README's command reference; the commands and every command's options
# come from the binary's own --help, so the page lists what the binary
# accepts.  `make install` runs it; `man -l` shows the result.
set -eu
bin=$1
version=${2:-git}
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/" -e 's/-/\\-/g'; }

cat <<EOT
.TH HQSIM 1 "" "hqsim $version" "User Commands"
.SH NAME
hqsim \\- simulate how an NVIDIA GPU schedules concurrent work
.SH SYNOPSIS
.B hqsim
.I COMMAND
[\\fIOPTIONS\\fR...] [\\fIFILE\\fR...]
.br
.B hqsim
.I COMMAND
.B \\-\\-help
.SH DESCRIPTION
.B hqsim
is a discrete-event simulator of NVIDIA GPU scheduling: Hyper-Q hardware
queues, block dispatch onto SMs, SM sharing, time-slicing between
processes, and the Multi-Process Service (MPS).  It runs hand-written
scenarios (JSON) and profiler traces (nvprof, Nsight Systems, Nsight
Compute, PyTorch/Kineto; the format is detected from the content) on a
model of a GPU, and answers what-if questions: how the same work behaves
under MPS, with more processes, another GPU, or other connection counts.
.PP
Every option has a \\fB\\-\\-help\\fR line.  \\fB\\-\\fR as a file name means
standard output.  Outputs are written to a temporary file and renamed, so a
failed run leaves no half-written file.
.SH COMMANDS
EOT
"$bin" --help 2>&1 | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\)  *\(.*\)/\1\t\2/p' |
while IFS=$'\t' read -r cmd what; do
    printf '.TP\n.B %s\n%s\n' "$cmd" "$(printf '%s' "$what" | esc)"
done
echo '.SH OPTIONS'
"$bin" --help 2>&1 | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' |
while read -r cmd; do
    printf '.SS hqsim %s\n' "$cmd"
    usage=$("$bin" "$cmd" --help 2>&1 | sed -n '2s/^  *//p')
    printf '.B %s\n.PP\n' "$(printf '%s' "$usage" | esc)"
    "$bin" "$cmd" --help 2>&1 | sed -n '/^Application Options:/,$p' |
        sed -n 's/^  \(-[^ ].*[^ ]\)   *\([^ ].*\)$/\1\t\2/p' |
    while IFS=$'\t' read -r opt help; do
        printf '.TP\n.B %s\n%s\n' "$(printf '%s' "$opt" | esc)" \
            "$(printf '%s' "$help" | esc)"
    done
done
cat <<EOT
.SH LIMITS
EOT
"$bin" --help 2>&1 | sed -n '/--limit NAME=N/,/^$/p' | sed -n '/^[A-Za-z]/p' | esc
"$bin" --help 2>&1 | sed -n '/--limit NAME=N/,$p' |
    sed -n 's/^  \([a-z_][a-z_]*\)  *\([0-9][0-9]*\)  *\(.*\)$/\1\t\2\t\3/p' |
while IFS=$'\t' read -r name def what; do
    printf '.TP\n.BR %s " (default %s)"\n%s\n' "$name" "$def" \
        "$(printf '%s' "$what" | esc)"
done
cat <<EOT
.SH ENVIRONMENT
.TP
.B HQSIM_MODELS
The folder of GPU model files (\\fINAME\\fB.json\\fR).  Without it, the
models installed with hqsim are used (\\fIPREFIX\\fB/share/hqsim/models\\fR),
or those of the source tree it was built in.  \\fB\\-\\-models\\-dir\\fR
overrides both for one command.
.SH FILES
.TP
.I PREFIX/share/hqsim/models/*.json
GPU models: SM counts and limits, scheduling parameters, MPS and
time-slicing costs, each value with its source
(\\fBhqsim models \\-\\-show\\fR \\fIM\\fR).
.SH EXIT STATUS
0 on success, 2 for bad usage, 1 for any other error; errors name the
file, line and field.
.SH EXAMPLES
.nf
hqsim compare traces/default.json
hqsim run trace.nsys\\-rep.sqlite \\-\\-mode mps \\-\\-processes 4
hqsim sweep trace.json \\-n 1\\-16 \\-\\-slo\\-p99\\-ms 20 \\-\\-plot sweep.png
.fi
.SH SEE ALSO
The README of the hqsim source tree: the model, the scenario format, the
outputs and the accuracy against measured GPUs.
EOT
