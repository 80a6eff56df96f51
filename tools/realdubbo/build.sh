#!/usr/bin/env bash
# Exports Apache Dubbo (3.3: the bare mirror's HEAD; 2.7: tag dubbo-2.7.23) and compiles the
# differential-test driver against the real sources. Idempotent: everything is cached under $RD_CACHE
# (default /tmp/realdubbo-cache, /tmp/realdubbo-cache-2.7 for the 2.7 profile) and rebuilt only when
# the Dubbo commit or a harness Java file changes.
#
#   RD_PROFILE=3.3 (default) | 2.7     which driver: java/realdubbo/Driver.java or java27/realdubbo/Driver27.java
#   DUBBO_REF=<ref>                    the Dubbo commit to export (default HEAD for 3.3, dubbo-2.7.23 for 2.7)
#
# javac compiles only what the driver references (-sourcepath), plus the SPI extension classes named
# in EXTRA below (ExtensionLoader finds those by name from META-INF/dubbo/internal files, so javac
# cannot see them). The SPI resource files of the exported modules are copied one folder per module
# (as the jars would ship them), minus the lines whose class was not compiled (see README.md).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MIRROR="${DUBBO_MIRROR:?set DUBBO_MIRROR to a bare git mirror of apache/dubbo}"
PROFILE="${RD_PROFILE:-3.3}"
case "$PROFILE" in
  3.3) REF="${DUBBO_REF:-HEAD}"; CACHE="${RD_CACHE:-/tmp/realdubbo-cache}" ;;
  2.7) REF="${DUBBO_REF:-dubbo-2.7.23}"; CACHE="${RD_CACHE:-/tmp/realdubbo-cache-2.7}" ;;
  *) echo "build.sh: RD_PROFILE must be 3.3 or 2.7, found $PROFILE" >&2; exit 2 ;;
esac
MODULES="dubbo-common dubbo-rpc/dubbo-rpc-api dubbo-cluster dubbo-registry/dubbo-registry-api"
# 2.7's DefaultProviderURLMergeProcessor reads org.apache.dubbo.remoting.Constants (one constants class).
[ "$PROFILE" = 2.7 ] && MODULES="$MODULES dubbo-remoting/dubbo-remoting-api"

commit="$(git -C "$MIRROR" rev-parse "$REF^{commit}")"
jars=""
JARS="javassist snakeyaml gson commons-logging slf4j-api log4j-1.2 log4j-api log4j-core"
# 2.7: javax.annotation.PostConstruct (libgeronimo-annotation-1.3-spec-java), gone from the JDK since 11.
[ "$PROFILE" = 2.7 ] && JARS="$JARS geronimo-annotation-1.3-spec"
for j in $JARS; do
  f="/usr/share/java/$j.jar"
  [ -f "$f" ] || { echo "build.sh: missing $f (apt-get install libjavassist-java libyaml-snake-java libgoogle-gson-java libcommons-logging-java libslf4j-java liblog4j1.2-java liblog4j2-java libgeronimo-annotation-1.3-spec-java)" >&2; exit 2; }
  jars="$jars:$f"
done
jars="${jars#:}"
# The driver sources: the shared invoker, rule repository and weight probe, and the profile's driver.
if [ "$PROFILE" = 2.7 ]; then
  DRIVER_SRC="$(find "$HERE/java" -name '*.java' ! -name Driver.java | sort) $(find "$HERE/java27" -name '*.java' | sort)"
else
  DRIVER_SRC="$(find "$HERE/java" -name '*.java' | sort)"
fi
stamp="$PROFILE $commit $(cat "$HERE"/build.sh $DRIVER_SRC | sha1sum | cut -c1-16)"
if [ -f "$CACHE/stamp" ] && [ "$(cat "$CACHE/stamp")" = "$stamp" ] && [ -d "$CACHE/classes/realdubbo" ]; then
  echo "realdubbo build: cached ($CACHE, dubbo $commit)" >&2
  exit 0
fi

rm -rf "$CACHE"
mkdir -p "$CACHE/src" "$CACHE/classes" "$CACHE/res"
git -C "$MIRROR" archive "$commit" $MODULES | tar -x -C "$CACHE/src"
S="$CACHE/src"
SP="$S/dubbo-common/src/main/java:$S/dubbo-rpc/dubbo-rpc-api/src/main/java:$S/dubbo-cluster/src/main/java:$S/dubbo-registry/dubbo-registry-api/src/main/java:$HERE/java"
[ "$PROFILE" = 2.7 ] && SP="$SP:$S/dubbo-remoting/dubbo-remoting-api/src/main/java:$HERE/java27"

# SPI implementations loaded by name at run time (not referenced from code javac can follow).
EXTRA33="
org.apache.dubbo.common.extension.DubboInternalLoadingStrategy
org.apache.dubbo.common.extension.DubboLoadingStrategy
org.apache.dubbo.common.extension.ServicesLoadingStrategy
org.apache.dubbo.common.json.impl.GsonImpl
org.apache.dubbo.common.extension.inject.AdaptiveExtensionInjector
org.apache.dubbo.common.extension.inject.SpiExtensionInjector
org.apache.dubbo.common.beans.ScopeBeanExtensionInjector
org.apache.dubbo.common.compiler.support.AdaptiveCompiler
org.apache.dubbo.common.compiler.support.JavassistCompiler
org.apache.dubbo.common.compiler.support.JdkCompiler
org.apache.dubbo.common.CommonScopeModelInitializer
org.apache.dubbo.rpc.AdaptiveScopeModelInitializer
org.apache.dubbo.rpc.cluster.ClusterScopeModelInitializer
org.apache.dubbo.rpc.cluster.MergeableClusterScopeModelInitializer
org.apache.dubbo.config.context.ConfigManager
org.apache.dubbo.common.config.Environment
org.apache.dubbo.common.config.ModuleEnvironment
org.apache.dubbo.config.context.ModuleConfigManager
org.apache.dubbo.common.config.configcenter.nop.NopDynamicConfigurationFactory
org.apache.dubbo.common.infra.support.EnvironmentAdapter
org.apache.dubbo.common.url.component.param.DefaultDynamicParamSource
org.apache.dubbo.common.logger.jdk.JdkLoggerAdapter
org.apache.dubbo.rpc.cluster.router.condition.matcher.attachment.AttachmentConditionMatcherFactory
org.apache.dubbo.rpc.cluster.router.condition.matcher.argument.ArgumentConditionMatcherFactory
org.apache.dubbo.rpc.cluster.router.condition.matcher.param.UrlParamConditionMatcherFactory
org.apache.dubbo.rpc.cluster.router.condition.matcher.pattern.range.RangeValuePattern
org.apache.dubbo.rpc.cluster.router.condition.matcher.pattern.wildcard.WildcardValuePattern
org.apache.dubbo.registry.support.DefaultProviderFirstParams
org.apache.dubbo.rpc.cluster.router.mock.MockStateRouterFactory
org.apache.dubbo.rpc.cluster.router.tag.TagStateRouterFactory
org.apache.dubbo.rpc.cluster.router.condition.config.ServiceStateRouterFactory
org.apache.dubbo.rpc.cluster.router.condition.config.AppStateRouterFactory
org.apache.dubbo.rpc.cluster.router.condition.config.ProviderAppStateRouterFactory
org.apache.dubbo.rpc.cluster.router.condition.ConditionStateRouterFactory
"
# 2.7.23: the ExtensionFactory-era injectors, the compilers, the JDK logger and the URL merge processor.
EXTRA27="
org.apache.dubbo.common.extension.DubboInternalLoadingStrategy
org.apache.dubbo.common.extension.DubboLoadingStrategy
org.apache.dubbo.common.extension.ServicesLoadingStrategy
org.apache.dubbo.common.extension.factory.AdaptiveExtensionFactory
org.apache.dubbo.common.extension.factory.SpiExtensionFactory
org.apache.dubbo.common.compiler.support.AdaptiveCompiler
org.apache.dubbo.common.compiler.support.JavassistCompiler
org.apache.dubbo.common.compiler.support.JdkCompiler
org.apache.dubbo.common.logger.jdk.JdkLoggerAdapter
org.apache.dubbo.rpc.cluster.support.merger.DefaultProviderURLMergeProcessor
"
if [ "$PROFILE" = 2.7 ]; then EXTRA="$EXTRA27"; else EXTRA="$EXTRA33"; fi
extra_files=""
for c in $EXTRA; do
  f=""
  for d in ${SP//:/ }; do
    if [ -f "$d/${c//.//}.java" ]; then f="$d/${c//.//}.java"; break; fi
  done
  [ -n "$f" ] || { echo "build.sh: no source for $c" >&2; exit 2; }
  extra_files="$extra_files $f"
done

echo "realdubbo build: compiling the $PROFILE driver against dubbo $REF = $commit (javac -sourcepath; about a minute)" >&2
javac -nowarn -encoding UTF-8 -proc:none -g \
  -sourcepath "$SP" -cp "$jars" -d "$CACHE/classes" \
  $DRIVER_SRC $extra_files 2>"$CACHE/javac.log" || { cat "$CACHE/javac.log" >&2; exit 1; }

# SPI files, one folder per module as in the jars; drop the lines whose class is not compiled.
dropped="$CACHE/spi-dropped.txt"; : > "$dropped"
for m in $MODULES; do
  n="$(basename "$m")"
  src="$S/$m/src/main/resources/META-INF"
  [ -d "$src" ] || continue
  find "$src" -type f \( -path '*/dubbo/internal/*' -o -path '*/services/*' \) | while read -r f; do
    rel="${f#$S/$m/src/main/resources/}"
    base="$(basename "$f")"
    # dubbo-registry-api is exported only for ProviderFirstParams (FailbackRegistry's provider-first keys)
    if [ "$n" = dubbo-registry-api ] && [ "$base" != org.apache.dubbo.registry.ProviderFirstParams ]; then continue; fi
    # dubbo-remoting-api (2.7) is exported for one constants class only
    if [ "$n" = dubbo-remoting-api ]; then continue; fi
    # the config center is replaced by the harness's MemoryRuleRepository (see harness-res below)
    if [ "$base" = org.apache.dubbo.rpc.cluster.governance.GovernanceRuleRepository ]; then continue; fi
    mkdir -p "$CACHE/res/$n/$(dirname "$rel")"
    while IFS= read -r line || [ -n "$line" ]; do
      cls="${line#*=}"; cls="${cls%%#*}"; cls="$(echo "$cls" | tr -d '[:space:]')"
      [ -z "$cls" ] && continue
      if [ -f "$CACHE/classes/${cls//.//}.class" ]; then echo "$line"; else echo "$n $base $cls" >> "$dropped"; fi
    done < "$f" > "$CACHE/res/$n/$rel"
  done
done
mkdir -p "$CACHE/res/harness/META-INF/dubbo/internal"
echo 'default=realdubbo.MemoryRuleRepository' > "$CACHE/res/harness/META-INF/dubbo/internal/org.apache.dubbo.rpc.cluster.governance.GovernanceRuleRepository"
# Dubbo's JdkLoggerAdapter reads logging.properties from the class path: errors only (rules that fail
# to parse, bad tag addresses), to the driver's stderr (run.sh keeps it in java.log).
printf 'handlers=java.util.logging.ConsoleHandler\n.level=SEVERE\njava.util.logging.ConsoleHandler.level=SEVERE\n' > "$CACHE/res/harness/logging.properties"
cp "$S/dubbo-common/src/main/resources/META-INF/version" "$CACHE/res/dubbo-common/META-INF/" 2>/dev/null || true

cp_run="$CACHE/classes"
for n in dubbo-common dubbo-rpc-api dubbo-cluster dubbo-registry-api harness; do
  [ -d "$CACHE/res/$n" ] && cp_run="$cp_run:$CACHE/res/$n"
done
for j in javassist snakeyaml gson; do cp_run="$cp_run:/usr/share/java/$j.jar"; done
[ "$PROFILE" = 2.7 ] && cp_run="$cp_run:/usr/share/java/geronimo-annotation-1.3-spec.jar"
echo "$cp_run" > "$CACHE/classpath"
echo "$stamp" > "$CACHE/stamp"
echo "realdubbo build: $(find "$CACHE/classes" -name '*.class' | wc -l) classes, $(wc -l < "$dropped") SPI lines without a compiled class (spi-dropped.txt)" >&2
