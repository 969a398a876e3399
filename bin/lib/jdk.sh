# shellcheck shell=bash disable=SC2034  # JFIO_JAVA* are set here for the scripts that source this file
# Finds a JDK for jfio's scripts (bin/jfio, bin/test). Sourced, never run; defines functions and nothing else.
#
# jfio uses the FFM API, final in JDK 22, so it needs a JDK 22 or newer, with javac (the scripts build with Maven).
# Search order, first match wins except in the directories, where the highest version wins:
#   1. $JAVA_HOME/bin/java
#   2. java on PATH
#   3. DIR/*/bin/java for each DIR in JFIO_JVM_DIRS (colon-separated; default /usr/lib/jvm)

JFIO_MIN_JAVA=22

# Prints the version string the java binary $1 reports ("25.0.1", "22", "17.0.15", "1.8.0_392", "26-ea").
# Scans every line of `java -version`, because JAVA_TOOL_OPTIONS and _JAVA_OPTIONS add "Picked up ..." lines first.
jfio_java_version() {
    local out line
    out=$("$1" -version 2>&1 </dev/null) || return 1
    while IFS= read -r line; do
        if [[ $line =~ version\ \"([^\"]+)\" ]]; then
            printf '%s\n' "${BASH_REMATCH[1]}"
            return 0
        fi
    done <<<"$out"
    return 1
}

# The version of java binary $1 (real path $2), as jfio_java_version prints it. Asking means starting a JVM (40-80 ms
# a candidate, at every start of bin/jfio), so when JFIO_JAVA_VERSION_CACHE names a file, answers are kept there, one
# line per binary ("real-path<TAB>inode:size:mtime<TAB>version"), and reused while the binary is unchanged.
_jfio_version_of() {
    local java=$1 real=$2 cache=${JFIO_JAVA_VERSION_CACHE:-} id='' p i v version
    if [[ -n $cache ]] && id=$(stat -L -c '%i:%s:%.9Y' -- "$real" 2>/dev/null) && [[ -f $cache ]]; then
        while IFS=$'\t' read -r p i v; do
            if [[ $p == "$real" && $i == "$id" && -n $v ]]; then
                printf '%s\n' "$v"
                return 0
            fi
        done <"$cache"
    fi
    version=$(jfio_java_version "$java") || return 1
    if [[ -n $cache && -n $id && -d ${cache%/*} ]]; then
        { printf '%s\t%s\t%s\n' "$real" "$id" "$version" >>"$cache"; } 2>/dev/null || true
    fi
    printf '%s\n' "$version"
}

# Prints the feature release of version string $1: "1.8.0_392" -> 8 (the old 1.x scheme), "25.0.1" -> 25, "22" -> 22.
jfio_java_major() {
    if [[ $1 =~ ^1\.([0-9]+) ]]; then
        printf '%s\n' "${BASH_REMATCH[1]}"
    elif [[ $1 =~ ^([0-9]+) ]]; then
        printf '%s\n' "${BASH_REMATCH[1]}"
    else
        return 1
    fi
}

# Looks at one candidate: $1 the java binary, $2 where it was found (for the message). Appends what it found to
# JFIO_JDK_SEEN; on success sets _jfio_home and _jfio_version and returns 0. A binary reached a second way (a PATH
# symlink to JAVA_HOME's java) is listed again but not run again.
_jfio_consider() {
    local java=$1 where=$2 real version='' major verdict ok=1 cached
    if [[ ! -x $java || -d $java ]]; then
        JFIO_JDK_SEEN+=("$where: $java: no such executable")
        return 1
    fi
    real=$(readlink -f -- "$java") || real=$java
    cached=${_jfio_tried[$real]:-}
    if [[ -n $cached ]]; then
        ok=${cached%%|*} cached=${cached#*|}
        version=${cached%%|*} verdict=${cached#*|}
    elif ! version=$(_jfio_version_of "$java" "$real") || ! major=$(jfio_java_major "$version"); then
        verdict="cannot tell its version from 'java -version'"
    elif ((major < JFIO_MIN_JAVA)); then
        verdict="version $version (too old)"
    elif [[ ! -x ${real%/*}/javac ]]; then
        verdict="version $version (a runtime only: no javac beside it)"
    else
        verdict="version $version"
        ok=0
    fi
    _jfio_tried[$real]="$ok|$version|$verdict"
    if [[ $real != "$java" ]]; then
        JFIO_JDK_SEEN+=("$where: $java -> $real: $verdict")
    else
        JFIO_JDK_SEEN+=("$where: $java: $verdict")
    fi
    ((ok == 0)) || return 1
    _jfio_home=${real%/bin/*}
    _jfio_version=$version
    return 0
}

# Finds a JDK >= 22. On success sets JFIO_JAVA (its java), JFIO_JAVA_HOME and JFIO_JAVA_VERSION and returns 0;
# otherwise returns 1, and JFIO_JDK_SEEN lists every java looked at and why it did not do.
jfio_find_jdk() {
    JFIO_JDK_SEEN=()
    local -A _jfio_tried=()
    local _jfio_home _jfio_version onpath dir java best_home='' best_version='' found dirs=()
    if [[ -n ${JAVA_HOME:-} ]]; then
        if _jfio_consider "$JAVA_HOME/bin/java" "JAVA_HOME"; then
            JFIO_JAVA_HOME=$JAVA_HOME JFIO_JAVA=$JAVA_HOME/bin/java JFIO_JAVA_VERSION=$_jfio_version
            return 0
        fi
    else
        JFIO_JDK_SEEN+=("JAVA_HOME: not set")
    fi
    if onpath=$(command -v java); then
        if _jfio_consider "$onpath" "PATH"; then
            JFIO_JAVA_HOME=$_jfio_home JFIO_JAVA=$_jfio_home/bin/java JFIO_JAVA_VERSION=$_jfio_version
            return 0
        fi
    else
        JFIO_JDK_SEEN+=("PATH: no java")
    fi
    IFS=: read -r -a dirs <<<"${JFIO_JVM_DIRS-/usr/lib/jvm}"
    for dir in "${dirs[@]}"; do
        [[ -n $dir ]] || continue
        found=0
        for java in "$dir"/*/bin/java; do
            [[ -e $java ]] || continue
            found=1
            if _jfio_consider "$java" "$dir"; then
                if [[ -z $best_version ]] || [[ $(printf '%s\n%s\n' "$best_version" "$_jfio_version" \
                        | sort -V | tail -n 1) != "$best_version" ]]; then
                    best_home=$_jfio_home best_version=$_jfio_version
                fi
            fi
        done
        ((found)) || JFIO_JDK_SEEN+=("$dir: no */bin/java")
    done
    if [[ -n $best_home ]]; then
        JFIO_JAVA_HOME=$best_home JFIO_JAVA=$best_home/bin/java JFIO_JAVA_VERSION=$best_version
        return 0
    fi
    return 1
}

# Prints the one message for "no usable JDK" to stderr: what was found, and what to install.
jfio_no_jdk_message() {
    local line
    {
        printf 'jfio: no JDK %s or newer found (jfio uses the FFM API, final in JDK 22). Looked at:\n' "$JFIO_MIN_JAVA"
        for line in "${JFIO_JDK_SEEN[@]}"; do
            printf '  %s\n' "$line"
        done
        printf '%s%s\n' "Install a JDK 22 or newer, e.g. 'apt-get install openjdk-25-jdk' or Eclipse Temurin 25, " \
            "or set JAVA_HOME to one."
    } >&2
}

# Finds a JDK or exits 3 (ExitCodes.ENVIRONMENT) with the message.
jfio_require_jdk() {
    if ! jfio_find_jdk; then
        jfio_no_jdk_message
        exit 3
    fi
}

# The JVM turns file names into strings with the locale's character set (sun.jnu.encoding). Without a UTF-8 locale
# (LANG unset, as under cron, systemd or env -i) that is ASCII, and a name such as café.log cannot even be named.
# Where the locale the environment gives is not UTF-8, the JVM gets C.UTF-8 (built into glibc since 2.35, shipped
# by Debian and its derivatives before); if the system lacks it, the JVM falls back to ASCII as before.
jfio_utf8_locale() {
    local lc=${LC_ALL:-${LC_CTYPE:-${LANG:-}}}
    shopt -s nocasematch
    if [[ ! $lc =~ utf-?8 ]]; then
        export LC_ALL=C.UTF-8
    fi
    shopt -u nocasematch
}
