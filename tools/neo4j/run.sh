#!/usr/bin/env bash
# Neo4j 5.26 (community) with Neo4j Browser on 127.0.0.1, without Docker: the server the tests run,
# and the way to browse your own analysis in Neo4j Browser.
#
#   bash tools/neo4j/run.sh        build if needed (Maven; jars cached in ~/.m2), start unless already
#                                  running, then print on stdout, one per line:
#                                    bolt://127.0.0.1:PORT
#                                    http://127.0.0.1:PORT/browser/
#   bash tools/neo4j/run.sh stop   stop it (a clean shutdown; the data stays)
#
# PROTOXPLORE_NEO4J_HOME      data, log, pid (default: $PROTOXPLORE_HOME/neo4j, i.e. ~/.protoxplore/neo4j)
# PROTOXPLORE_NEO4J_PASSWORD  password of the user neo4j (default: protoxplore); auth is on
# PROTOXPLORE_NEO4J_HEAP      Java heap of the server (default: 2g)
# PROTOXPLORE_NEO4J_PAGECACHE page cache of the server (default: 1g)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
home=${PROTOXPLORE_NEO4J_HOME:-${PROTOXPLORE_HOME:-$HOME/.protoxplore}/neo4j}
mkdir -p "$home"
home=$(cd "$home" && pwd)
pidfile=$home/neo4j.pid
urls=$home/urls
log=$home/neo4j.log

fail() { echo "tools/neo4j/run.sh: $*" >&2; exit 1; }

running_pid() {  # the pid of our server for this home, if it runs (a stale pid file is ignored)
    local pid
    pid=$(cat "$pidfile" 2>/dev/null) || return 1
    grep -qs "protoxplore.Neo4jServer" "/proc/$pid/cmdline" && echo "$pid"
}

build() {
    command -v java >/dev/null || fail "java not found: install a Java 17 JDK (Debian: apt-get install openjdk-17-jdk-headless)"
    command -v mvn >/dev/null || fail "mvn not found: install Maven 3.8+ (Debian: apt-get install maven)"
    local stamp=$here/target/built
    if [ -f "$stamp" ] && [ -z "$(find "$here/pom.xml" "$here/src" -newer "$stamp" -print -quit)" ]; then
        return
    fi
    echo "building the Neo4j launcher with Maven (the first build downloads about 200 MB into ~/.m2)" >&2
    mvn -B -q -f "$here/pom.xml" package >&2 || fail "the Maven build failed (see above)"
    touch "$stamp"
}

start() {
    if pid=$(running_pid); then
        echo "Neo4j already runs (pid $pid, home $home)" >&2
        cat "$urls"
        return
    fi
    build
    rm -f "$urls"
    # setsid: the server outlives this script and the terminal that started it.
    # The JVM options are those Neo4j's own launcher gives: without the --add-opens its page cache
    # falls back to a slower way of reaching memory (it says so in its log).
    PROTOXPLORE_NEO4J_PASSWORD=${PROTOXPLORE_NEO4J_PASSWORD:-protoxplore} setsid java \
        "-Xmx${PROTOXPLORE_NEO4J_HEAP:-2g}" --add-opens=java.base/java.nio=ALL-UNNAMED \
        --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED \
        --add-opens=java.base/java.lang=ALL-UNNAMED -XX:+UnlockExperimentalVMOptions -XX:+TrustFinalNonStaticFields \
        -XX:-OmitStackTraceInFastThrow -Dio.netty.tryReflectionSetAccessible=true -cp "$here/target/classes:$here/target/lib/*" \
        protoxplore.Neo4jServer "$home" >"$home/ready" 2>"$log" </dev/null 9>&- &
    local pid=$!
    echo "$pid" >"$pidfile"
    for _ in $(seq 1 600); do
        if [ "$(wc -l <"$home/ready")" -ge 2 ]; then
            mv "$home/ready" "$urls"
            echo "Neo4j 5 runs (pid $pid, home $home); user neo4j, password from PROTOXPLORE_NEO4J_PASSWORD" \
                 "(default protoxplore); stop it with: bash tools/neo4j/run.sh stop" >&2
            cat "$urls"
            return
        fi
        kill -0 "$pid" 2>/dev/null || { tail -n 20 "$log" >&2; fail "Neo4j did not start; its log: $log"; }
        sleep 0.2
    done
    kill "$pid"
    fail "Neo4j did not answer within 120 s; its log: $log"
}

stop() {
    local pid
    if ! pid=$(running_pid); then
        echo "Neo4j is not running (home $home)" >&2
        return
    fi
    kill -TERM "$pid"  # the launcher's shutdown hook closes the database cleanly
    for _ in $(seq 1 600); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile" "$urls"; echo "Neo4j stopped (home $home)" >&2; return; }
        sleep 0.1
    done
    fail "Neo4j (pid $pid) did not stop within 60 s; its log: $log"
}

# One start or stop at a time per home (the tests and .ci/run may both ask).
exec 9>"$home/lock"
flock 9
case "${1:-start}" in
    start) start ;;
    stop) stop ;;
    *) fail "usage: run.sh [start|stop]" ;;
esac
