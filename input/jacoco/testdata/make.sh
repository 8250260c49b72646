#!/bin/sh
# Makes jacoco.xml and jacoco.csv, the checked-in JaCoCo reports of the Java
# program in java/demo, with the real tools: javac, a run with JaCoCo's
# agent (Debian's libjacoco-java), and java/Report.java, which writes the
# XML and CSV reports with org.jacoco.report. The tests run this script
# again (into a temporary folder) when java, javac and the JaCoCo jars are
# there.
#
#   testdata/make.sh [OUTDIR]     (default: testdata)
#
# Made with OpenJDK 17 and JaCoCo 0.8.6 (Debian 12). The session id and
# times are fixed afterwards in the checked-in files only.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-}
jars=${JACOCO_JARS:-/usr/share/java}
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cd "$build"
jar xf "$jars/org.jacoco.agent.jar" jacocoagent.jar
mkdir classes report
javac -g -d classes "$here"/java/demo/*.java
java -javaagent:jacocoagent.jar=destfile=jacoco.exec -cp classes demo.Main >/dev/null
cp="$jars/org.jacoco.core.jar:$jars/org.jacoco.report.jar:$jars/asm.jar:$jars/asm-commons.jar:$jars/asm-tree.jar"
javac -cp "$cp" -d report "$here/java/Report.java"
java -cp "report:$cp" Report jacoco.exec classes "$here/java" jacoco.xml jacoco.csv
if [ -n "$out" ]; then
	cp jacoco.xml jacoco.csv "$out"/
else
	sed 's/<sessioninfo id="[^"]*" start="[0-9]*" dump="[0-9]*"/<sessioninfo id="demo" start="1700000000000" dump="1700000001000"/' jacoco.xml >"$here/jacoco.xml"
	cp jacoco.csv "$here/jacoco.csv"
fi
