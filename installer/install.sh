#!/bin/sh
# Install (or remove) the standalone jlgcli on macOS or Linux, for the current user.
#
#   curl -fsSL https://github.com/OWNER/REPO/releases/latest/download/install.sh | sh
#   sh install.sh [--version vX.Y.Z] [--prefix DIR] [--archive ZIP [--sha256 HEX]] [--uninstall]
#   sh install.sh --print-target      # the <os>-<cpu> of the zip this machine gets
#
# Downloads jlgcli-<os>-<cpu>.zip from the GitHub release, verifies its SHA-256 against
# the published .sha256 file, unpacks it into PREFIX/lib/jlgcli and links PREFIX/bin/jlgcli
# to it. PREFIX defaults to ~/.local (JLGCLI_PREFIX overrides). No root needed.
set -eu

# The release workflow stamps these two lines with the repository and tag of the release.
# OWNER/REPO: a placeholder, replaced by the real repository in each release (release.py stamp)
DEFAULT_REPO="OWNER/REPO"
DEFAULT_VERSION="latest"

REPO="${JLGCLI_REPO:-$DEFAULT_REPO}"
VERSION="${JLGCLI_VERSION:-$DEFAULT_VERSION}"
PREFIX="${JLGCLI_PREFIX:-${HOME}/.local}"
ARCHIVE=""
SHA256=""
ACTION="install"

say() { printf '%s\n' "$*"; }
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,10p' "$0" 2>/dev/null | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --version) [ $# -ge 2 ] || die "--version needs a value"; VERSION="$2"; shift 2 ;;
        --prefix) [ $# -ge 2 ] || die "--prefix needs a value"; PREFIX="$2"; shift 2 ;;
        --archive) [ $# -ge 2 ] || die "--archive needs a value"; ARCHIVE="$2"; shift 2 ;;
        --sha256) [ $# -ge 2 ] || die "--sha256 needs a value"; SHA256="$2"; shift 2 ;;
        --repo) [ $# -ge 2 ] || die "--repo needs a value"; REPO="$2"; shift 2 ;;
        --uninstall) ACTION="uninstall"; shift ;;
        --print-target) ACTION="print-target"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option: $1 (see --help)" ;;
    esac
done

case "$PREFIX" in
    /*) ;;
    *) PREFIX="$(pwd)/$PREFIX" ;;
esac
LIB_DIR="$PREFIX/lib/jlgcli"
BIN_LINK="$PREFIX/bin/jlgcli"

target() {
    case "$(uname -s)" in
        Linux) os=linux ;;
        Darwin) os=macos ;;
        *) die "unsupported system $(uname -s); on Windows use install.ps1 or jlgcli-setup.exe" ;;
    esac
    case "$(uname -m)" in
        x86_64|amd64) cpu=x64 ;;
        arm64|aarch64) cpu=arm64 ;;
        *) die "unsupported CPU $(uname -m)" ;;
    esac
    printf '%s-%s' "$os" "$cpu"
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d ' ' -f 1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d ' ' -f 1
    else
        die "neither sha256sum nor shasum is installed: cannot verify the download"
    fi
}

first_hash() {
    # the 64-hex-digit hash at the start of a sha256sum-format line
    tr -d '\r' <"$1" | sed -n 's/^\([0-9a-fA-F]\{64\}\).*/\1/p' | head -n 1
}

download() {
    if command -v curl >/dev/null 2>&1; then
        curl --proto '=https' --tlsv1.2 -fsSL "$1" -o "$2"
    elif command -v wget >/dev/null 2>&1; then
        wget -q --https-only "$1" -O "$2"
    else
        die "neither curl nor wget is installed"
    fi
}

release_url() {
    [ "$REPO" != "OWNER/REPO" ] || die "this install.sh is not a release's copy: pass --repo OWNER/NAME (or set JLGCLI_REPO), or use --archive ZIP"
    if [ "$VERSION" = "latest" ]; then
        printf 'https://github.com/%s/releases/latest/download/%s' "$REPO" "$1"
    else
        case "$VERSION" in v*) tag="$VERSION" ;; *) tag="v$VERSION" ;; esac
        printf 'https://github.com/%s/releases/download/%s/%s' "$REPO" "$tag" "$1"
    fi
}

do_uninstall() {
    # Remove only what this script installed: the link (if it points to us) and lib/jlgcli.
    if [ -L "$BIN_LINK" ]; then
        case "$(readlink "$BIN_LINK")" in
            "$LIB_DIR"/*) rm -f "$BIN_LINK" ;;
            *) say "leaving $BIN_LINK: it does not point into $LIB_DIR" ;;
        esac
    fi
    if [ -d "$LIB_DIR" ]; then
        rm -rf "$LIB_DIR"
    fi
    say "jlgcli removed from $PREFIX (settings in your config dir are kept)"
}

do_install() {
    command -v unzip >/dev/null 2>&1 || die "unzip is needed (it keeps the bundle's symbolic links)"
    name="jlgcli-$(target).zip"
    work="$(mktemp -d "${TMPDIR:-/tmp}/jlgcli-install.XXXXXX")"
    trap 'rm -rf "$work"' EXIT HUP INT TERM

    if [ -n "$ARCHIVE" ]; then
        [ -f "$ARCHIVE" ] || die "no such archive: $ARCHIVE"
        zip="$ARCHIVE"
        if [ -z "$SHA256" ]; then
            [ -f "$ARCHIVE.sha256" ] || die "no checksum: pass --sha256 or put $ARCHIVE.sha256 next to it"
            SHA256="$(first_hash "$ARCHIVE.sha256")"
        fi
    else
        url="$(release_url "$name")"
        zip="$work/$name"
        say "Downloading $url"
        download "$url" "$zip"
        download "$url.sha256" "$zip.sha256"
        SHA256="$(first_hash "$zip.sha256")"
    fi
    [ -n "$SHA256" ] || die "the checksum file holds no SHA-256"
    actual="$(sha256_of "$zip")"
    expected="$(printf '%s' "$SHA256" | tr 'A-F' 'a-f')"
    [ "$actual" = "$expected" ] || die "checksum mismatch: expected $expected, got $actual; nothing was installed"
    say "Checksum OK (SHA-256 $actual)"

    unzip -q "$zip" -d "$work/unpacked"
    [ -f "$work/unpacked/jlgcli/jlgcli" ] || die "$(basename "$zip") does not hold jlgcli/jlgcli"
    chmod +x "$work/unpacked/jlgcli/jlgcli"

    mkdir -p "$PREFIX/lib" "$PREFIX/bin"
    rm -rf "$LIB_DIR.new"
    mv "$work/unpacked/jlgcli" "$LIB_DIR.new"
    rm -rf "$LIB_DIR"
    mv "$LIB_DIR.new" "$LIB_DIR"
    if [ -e "$BIN_LINK" ] && [ ! -L "$BIN_LINK" ]; then
        die "$BIN_LINK exists and is not a link; remove it and run again"
    fi
    ln -sf "$LIB_DIR/jlgcli" "$BIN_LINK"

    installed="$("$BIN_LINK" --version)" || die "$BIN_LINK --version failed"
    say "Installed $installed: $BIN_LINK -> $LIB_DIR/jlgcli"
    case ":${PATH:-}:" in
        *":$PREFIX/bin:"*) ;;
        *) say "Add $PREFIX/bin to your PATH, e.g. in ~/.profile:  export PATH=\"$PREFIX/bin:\$PATH\"" ;;
    esac
    say "Next: jlgcli --version, then jlgcli doctor (which agent CLIs are installed and logged in)"
    say "Uninstall: sh install.sh --uninstall --prefix $PREFIX"
}

if [ "$ACTION" = "uninstall" ]; then
    do_uninstall
elif [ "$ACTION" = "print-target" ]; then
    target
    echo
else
    do_install
fi
