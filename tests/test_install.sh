#!/usr/bin/env bash
# End-to-end test of `make install`: install into a temporary prefix (and
# once more staged under DESTDIR), run the installed binary from another
# directory on a bundled scenario and compare its numbers with the build
# tree's binary, check that it finds the models under the prefix, that
# pkg-config describes the library, and that a program compiled with those
# flags links against the installed shared library and gives the same JSON.
# Environment (set by `make check`): HQSIM (the build tree's binary), BUILD,
# HQSIM_CFLAGS (the build's CFLAGS: a sanitizer build links its runtime).
# Prints cmocka's summary lines, which tests/run_all.sh counts.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
hqsim=$(cd "$src" && readlink -f "${HQSIM:-$build/hqsim}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The build's own flags: the installed objects must match the build tree's
# (a sanitizer build links its runtime).
mkflags=(BUILD="$build")
[ -n "${HQSIM_CFLAGS:-}" ] && mkflags+=(CFLAGS="$HQSIM_CFLAGS")
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "[       OK ] $1"; }
bad() { failed=$((failed + 1)); echo "[  FAILED  ] $1: $2"; }

prefix=$tmp/prefix
if make -s --no-print-directory -C "$src" "${mkflags[@]}" install \
        PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
    ok "make install PREFIX"
else
    cat "$tmp/install.log"; bad "make install PREFIX" "failed"
fi
before=$failed
for f in bin/hqsim lib/libhqsim.a lib/libhqsim.so lib/pkgconfig/hqsim.pc \
         include/hqsim.h \
         share/hqsim/models/h100-sxm.json share/man/man1/hqsim.1 \
         share/bash-completion/completions/hqsim share/doc/hqsim/LICENSE; do
    [ -e "$prefix/$f" ] || bad "installed files" "no $prefix/$f"
done
[ "$(ls "$prefix/share/hqsim/models" | wc -l)" -eq "$(ls "$src"/models/*.json | wc -l)" ] ||
    bad "installed files" "not every model installed"
[ "$failed" -eq "$before" ] && ok "installed files"

# DESTDIR stages the same tree under another root, prefix unchanged inside.
stage=$tmp/stage
if make -s --no-print-directory -C "$src" "${mkflags[@]}" install \
        PREFIX=/opt/hqsim DESTDIR="$stage" >"$tmp/stage.log" 2>&1 &&
   [ -x "$stage/opt/hqsim/bin/hqsim" ] &&
   grep -q '^prefix=/opt/hqsim$' "$stage/opt/hqsim/lib/pkgconfig/hqsim.pc"; then
    ok "DESTDIR staging"
else
    cat "$tmp/stage.log"; bad "DESTDIR staging" "no /opt/hqsim tree under $stage"
fi

# The installed binary, run from elsewhere, gives the build tree's numbers.
mkdir -p "$tmp/elsewhere"
cp "$src/traces/default.json" "$tmp/elsewhere/scenario.json"
(cd "$tmp/elsewhere" &&
 "$prefix/bin/hqsim" compare scenario.json --json installed.json >installed.txt 2>&1 &&
 "$hqsim" compare scenario.json --json built.json >built.txt 2>&1)
if [ -s "$tmp/elsewhere/built.json" ] &&
   cmp -s "$tmp/elsewhere/installed.json" "$tmp/elsewhere/built.json" &&
   cmp -s "$tmp/elsewhere/installed.txt" "$tmp/elsewhere/built.txt"; then
    ok "installed binary: same numbers as the build tree"
else
    bad "installed binary" "its compare output differs from the build tree's"
fi

# The models under the prefix: HQSIM_MODELS pointing there lists them all.
(cd "$tmp/elsewhere" &&
 HQSIM_MODELS="$prefix/share/hqsim/models" "$prefix/bin/hqsim" models >models.txt 2>&1 &&
 HQSIM_MODELS="$src/models" "$hqsim" models >models-src.txt 2>&1)
if cmp -s "$tmp/elsewhere/models.txt" "$tmp/elsewhere/models-src.txt" &&
   grep -q h100-sxm "$tmp/elsewhere/models.txt"; then
    ok "HQSIM_MODELS under the prefix"
else
    bad "HQSIM_MODELS" "the installed models list differs"
fi

# The installed binary finds its models under the prefix by itself: a
# model that exists only there is found from another folder, without
# HQSIM_MODELS (the build tree's binary does not know it).
cp "$prefix/share/hqsim/models/h100-sxm.json" \
   "$prefix/share/hqsim/models/zz-installed-only.json"
if (cd "$tmp/elsewhere" && env -u HQSIM_MODELS "$prefix/bin/hqsim" run scenario.json \
        --gpu zz-installed-only --json only.json >/dev/null 2>&1) &&
   ! (cd "$tmp/elsewhere" && env -u HQSIM_MODELS "$hqsim" run scenario.json \
        --gpu zz-installed-only >/dev/null 2>&1); then
    ok "installed binary finds the models under the prefix"
else
    bad "models under the prefix" "the installed binary does not look in $prefix/share/hqsim/models"
fi

# The man page renders.
if command -v man >/dev/null; then
    if MANWIDTH=80 man -l "$prefix/share/man/man1/hqsim.1" 2>"$tmp/man.err" |
           grep -q -- '--processes' && [ ! -s "$tmp/man.err" ]; then
        ok "man -l hqsim.1"
    else
        cat "$tmp/man.err"; bad "man page" "does not render or lacks the options"
    fi
fi

# Bash completion completes commands and options from the binary.
comp=$(PATH="$prefix/bin:$PATH" bash -c '
    source "$1/share/bash-completion/completions/hqsim"
    COMP_WORDS=(hqsim comp); COMP_CWORD=1; _hqsim; echo "${COMPREPLY[*]}"
    COMP_WORDS=(hqsim run --thread); COMP_CWORD=2; _hqsim; echo "${COMPREPLY[*]}"
    COMP_WORDS=(hqsim run --mode m); COMP_CWORD=3; _hqsim; echo "${COMPREPLY[*]}"
' _ "$prefix")
if [ "$comp" = "compare
--thread-pct
mps" ]; then
    ok "bash completion"
else
    bad "bash completion" "got: $comp"
fi

# pkg-config, and a program built with its flags against the installed
# shared library: its JSON is the installed binary's --json, byte for byte.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
if flags=$(pkg-config --cflags --libs hqsim) &&
   case " $flags " in *" -I$prefix/include "*) true ;; *) false ;; esac &&
   case " $flags " in *" -L$prefix/lib "*) true ;; *) false ;; esac &&
   case " $flags " in *" -lhqsim "*) true ;; *) false ;; esac; then
    ok "pkg-config --cflags --libs hqsim"
else
    bad "pkg-config" "flags: ${flags:-none}"
fi
cat >"$tmp/use.c" <<'C'
#include <stdio.h>
#include <hqsim.h>
int main(int argc, char **argv)
{
    (void)argc;
    const char *files[] = {argv[1], NULL};
    GError *error = NULL;
    HqsimOptions *o = hqsim_options_new();
    HqsimResult *r = hqsim_run(files, o, &error);
    hqsim_options_free(o);
    if (!r) {
        fprintf(stderr, "%s\n", error->message);
        g_error_free(error);
        return 1;
    }
    char *json = hqsim_result_json(r);
    fputs(json, stdout);
    hqsim_free(json);
    hqsim_result_free(r);
    return 0;
}
C
(cd "$tmp/elsewhere" && "$prefix/bin/hqsim" run scenario.json --json run.json >/dev/null 2>&1)
if cc ${HQSIM_CFLAGS:-} -o "$tmp/use" "$tmp/use.c" \
      $(pkg-config --cflags --libs hqsim) 2>"$tmp/cc.err" &&
   (cd "$tmp/elsewhere" && env -u HQSIM_MODELS LD_LIBRARY_PATH="$prefix/lib" \
        "$tmp/use" scenario.json >lib.json 2>"$tmp/use.err") &&
   cmp -s "$tmp/elsewhere/lib.json" "$tmp/elsewhere/run.json"; then
    ok "a program linked with the installed shared library"
else
    cat "$tmp/cc.err" "$tmp/use.err" 2>/dev/null
    bad "library" "does not build, link or run, or its JSON differs"
fi

echo "[==========] $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
if [ "$failed" -gt 0 ]; then
    echo "[  FAILED  ] $failed test(s), listed above."
    exit 1
fi
