#!/usr/bin/env bash
# The stages of cmake/stages.txt, checked on the sources and on the built libraries:
#  - every file under src/ and include/redscope/ lies in a folder the stage file names;
#  - every #include "..." and #include <...> of a project header (resolved against the
#    including file's folder, include/ and src/) points at the file's own folder or one
#    that folder may use;
#  - with BUILD_DIR: every symbol a stage's static library (or the program's objects)
#    leaves undefined and some project object defines is defined in the same folder, a
#    folder it may use, or (across libraries) a library below it. This sees a call that
#    no #include shows (a declaration written by hand) and a stage calling its dialects.
# A violation prints file:line (or the object, the symbol and where it is defined) and
# fails; a use an `allow` line permits is listed as temporary and passes.
#
# Usage: tests/layering_check.sh [REPO_ROOT [BUILD_DIR]]
# tests/layering_selftest.sh plants one violation of each kind and expects a failure.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
build=${2:-}
[[ -z $build ]] || build=$(cd "$build" && pwd)
cd "$root"
stages_file=cmake/stages.txt
status=0
fail() {
  echo "$*"
  status=1
}

# --- the stage file -----------------------------------------------------------------
# Its lines, each after its line number, comments dropped, and FOLDER/* written out:
# as the folder of a line, one line per directory src/FOLDER/NAME/ (each a stage with
# the line's USES: every dialect folder, src/dialects/NAME/, is one); as a use, all of
# them.
expand_folders() {
  local pattern=${1%/\*} d
  for d in src/"$pattern"/*/; do
    if [[ -d $d ]]; then echo "$pattern/$(basename "$d")"; fi
  done
}
stage_lines() {
  local n=0 line w folder
  local -a words uses
  while IFS= read -r line || [[ -n $line ]]; do
    n=$((n + 1))
    read -r -a words <<<"${line%%#*}"
    ((${#words[@]})) || continue
    uses=()
    for w in "${words[@]:2}"; do
      if [[ $w == */\* ]]; then uses+=($(expand_folders "$w")); else uses+=("$w"); fi
    done
    if [[ ${words[1]:-} == */\* ]]; then
      for folder in $(expand_folders "${words[1]}"); do
        echo "$n ${words[0]} $folder ${uses[*]}"
      done
    else
      echo "$n ${words[*]:0:2} ${uses[*]}"
    fi
  done <"$stages_file"
}
# docs/architecture.md shows the stage lines in a ```stages block: the same lines.
if [[ -f docs/architecture.md ]]; then
  doc_lines=$(sed -n '/^```stages$/,/^```$/p' docs/architecture.md | sed '1d;$d')
  file_lines=$(sed 's/#.*//; /^[[:space:]]*$/d; s/[[:space:]]*$//' "$stages_file")
  [[ $doc_lines == "$file_lines" ]] ||
    fail "docs/architecture.md: its \`\`\`stages block differs from $stages_file"
fi
declare -A kind=() lib=() may=() allow=()
order=()
lineno=0
while read -r lineno line; do
  read -r -a words <<<"$line"
  ((${#words[@]})) || continue
  key=${words[0]} folder=${words[1]:-}
  where="$stages_file:$lineno"
  if [[ $key == allow ]]; then
    allow[$folder]="${allow[$folder]:-} ${words[*]:2}"
    continue
  fi
  if [[ $key == apart ]]; then # FOLDER may not use these, not even through its uses
    [[ -n ${kind[$folder]+x} ]] || fail "$where: apart names $folder before its line"
    for u in "${words[@]:2}"; do
      [[ -n ${kind[$u]+x} ]] || fail "$where: apart names an unknown folder $u"
      may[$folder]=${may[$folder]/ $u / }
    done
    continue
  fi
  if [[ $key != stage && $key != dialect && $key != program ]] || [[ -z $folder ]]; then
    fail "$where: expected 'stage|dialect|program FOLDER USES...', 'apart FOLDER FOLDER...'" \
      "or 'allow FILE FOLDER...'"
    continue
  fi
  [[ -z ${kind[$folder]+x} ]] || fail "$where: $folder is declared twice"
  closure=" $folder "
  for u in "${words[@]:2}"; do
    if [[ -z ${kind[$u]+x} ]]; then
      fail "$where: $folder uses $u, which is not declared on an earlier line"
      continue
    fi
    for f in ${may[$u]}; do
      [[ $closure == *" $f "* ]] || closure+="$f "
    done
  done
  case $key in
    stage) lib[$folder]=redscope_stage_${folder//\//_} ;;
    program) lib[$folder]=program:$folder ;;
    dialect)
      parent=$(dirname "$folder")
      if [[ ${kind[$parent]:-} != stage ]]; then
        fail "$where: dialect $folder is not in a stage folder declared above it"
        continue
      fi
      lib[$folder]=${lib[$parent]}
      ;;
  esac
  kind[$folder]=$key
  may[$folder]=$closure
  order+=("$folder")
done < <(stage_lines)
for file in "${!allow[@]}"; do
  for f in ${allow[$file]}; do
    [[ -n ${kind[$f]+x} ]] || fail "$stages_file: allow $file names an unknown folder $f"
  done
done

# True when FILE (in folder FROM) may use folder TO; sets `temporary` when only an allow
# line permits it.
may_use() {
  local file=$1 from=$2 to=$3
  temporary=0
  [[ ${may[$from]} == *" $to "* ]] && return 0
  if [[ " ${allow[$file]:-} " == *" $to "* ]]; then
    temporary=1
    return 0
  fi
  return 1
}

# --- includes -----------------------------------------------------------------------
# Sets `resolved` to the project file an include names, or to nothing for a system or
# generated header.
resolve() {
  local file=$1 quote=$2 target=$3 dir
  resolved=
  if [[ $quote == '"' && -f ${file%/*}/$target ]]; then
    resolved=$(realpath --relative-to=. "${file%/*}/$target")
    return
  fi
  for dir in include src; do
    [[ -f $dir/$target ]] && resolved=$dir/$target && return
  done
  return 0
}

# Sets `folder` to the folder of a file: src/engine/z3/x.cpp -> engine/z3.
folder_of() {
  folder=${1%/*}
  folder=${folder#src/}
  folder=${folder#include/redscope/}
}

temporaries=()
declare -A allow_used=() # "FILE FOLDER" of the allow lines some include or symbol needs
while IFS= read -r file; do
  folder_of "$file"
  from=$folder
  if [[ -z ${kind[$from]+x} ]]; then
    fail "$file: not in a known stage folder ($from); declare it in $stages_file"
    continue
  fi
  while IFS=$'\t' read -r line quote target; do
    resolve "$file" "$quote" "$target"
    if [[ -z $resolved ]]; then
      [[ $quote == '<' ]] || [[ $target == embedded_models.hpp || $target == z3_lazy.inc ]] ||
        fail "$file:$line: #include \"$target\" is not a project header"
      continue # generated into the build tree, or a system header
    fi
    folder_of "$resolved"
    to=$folder
    close='"'
    [[ $quote == '"' ]] || close='>'
    # A header under src/ is its library's own: another library includes only the
    # public headers, include/redscope/FOLDER/ (a dialect folder shares its stage's).
    if [[ $resolved == src/* && ${lib[$from]} != "${lib[$to]}" ]]; then
      fail "$file:$line: #include $quote$target$close is a private header of '$to'" \
        "(src/$to/); another stage includes only include/redscope/$to/"
      continue
    fi
    if may_use "$file" "$from" "$to"; then
      if ((temporary)); then
        temporaries+=("$file:$line: #include $quote$target$close (folder $to)")
        allow_used["$file $to"]=1
      fi
      continue
    fi
    fail "$file:$line: folder '$from' includes $quote$target$close from '$to', which it may" \
      "not use (not below it in $stages_file)"
  done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$file" |
    sed 's/^\([0-9]*\):[[:space:]]*#[[:space:]]*include[[:space:]]*\(["<]\)\([^">]*\).*/\1\t\2\t\3/')
done < <(find src include/redscope -type f | sort)

# --- symbols ------------------------------------------------------------------------
# Lines "SOURCE TYPE SYMBOL" for every symbol of every project object in BUILD_DIR.
symbols() {
  local f l members
  members=$(mktemp)
  for f in "${order[@]}"; do # the object file names of a library's members
    [[ ${kind[$f]} == program ]] && continue
    find "src/$f" -maxdepth 1 -name '*.cpp' -printf "${lib[$f]} %f.o %p\n"
  done >"$members"
  # A unity build's batch (CMake's Unity/unity_GROUP_cxx.cxx, one folder's sources,
  # cmake/stages.cmake) stands for its folder: src/FOLDER/unity_GROUP_cxx.cxx.
  for l in "${libraries[@]}"; do
    for u in "$build/CMakeFiles/$l.dir/Unity/"unity_*_cxx.cxx; do
      [[ -f $u ]] || continue
      mapfile -t folders < <(sed -n 's|^#include ".*/src/\(.*\)/[^/]*\.cpp"$|\1|p' "$u" | sort -u)
      # A batch of several folders stays unmapped: reported below as of no folder.
      if ((${#folders[@]} == 1)); then echo "$l ${u##*/}.o src/${folders[0]}/${u##*/}"; fi
    done
  done >>"$members"
  for l in "${libraries[@]}"; do
    [[ -f $build/lib$l.a ]] || continue
    nm -P -A "$build/lib$l.a" | sed "s/^[^[]*\[\([^]]*\)\]:/$l \1/"
  done | awk -v members="$members" '
    BEGIN { while ((getline line < members) > 0) { split(line, w, " "); src[w[1] " " w[2]] = w[3] } }
    { s = src[$1 " " $2]
      if (s == "") { print "?" $1 "/" $2, $4, $3; next }
      print s, $4, $3 }'
  for f in "${order[@]}"; do
    [[ ${kind[$f]} == program ]] || continue
    find "$build/CMakeFiles" -path "*.dir/src/$f/*.o" -exec nm -P -A {} + |
      sed 's|^[^ ]*\.dir/\(src/[^ ]*\)\.o: |\1 |' | awk '{ print $1, $3, $2 }'
  done
  rm -f "$members"
}

# Lines "FOLDER FOLDER2" (FOLDER may use FOLDER2), "lib L M" (library L may use library
# M whole), "file FILE FOLDER" (an allow line) and "in FOLDER LIBRARY".
relations() {
  local f g l
  declare -A below=()
  for f in "${order[@]}"; do
    echo "in $f ${lib[$f]}"
    for g in ${may[$f]}; do
      echo "$f $g"
      [[ ${lib[$g]} == "${lib[$f]}" ]] || below[${lib[$f]} ${lib[$g]}]=1
    done
  done
  for l in "${!below[@]}"; do echo "lib $l"; done
  for f in "${!allow[@]}"; do
    for g in ${allow[$f]}; do echo "file $f $g"; done
  done
}

if [[ -n $build ]]; then
  mapfile -t libraries < <(printf '%s\n' "${lib[@]}" | grep -v '^program:' | sort -u)
  for l in "${libraries[@]}"; do
    [[ -f $build/lib$l.a ]] || fail "$build/lib$l.a: not found (build the project first)"
  done
  rel=$(mktemp)
  relations >"$rel"
  report=$(symbols | awk -v rel="$rel" '
    function folder(s) { sub(/^src\//, "", s); sub(/\/[^\/]*$/, "", s); return s }
    BEGIN {
      while ((getline line < rel) > 0) {
        n = split(line, w, " ")
        if (w[1] == "in") libof[w[2]] = w[3]
        else if (w[1] == "lib") oklib[w[2] " " w[3]] = 1
        else if (w[1] == "file") okfile[w[2] " " w[3]] = 1
        else okfolder[w[1] " " w[2]] = 1
      }
    }
    $1 ~ /^\?/ { print "FAIL " substr($1, 2) ": an object of no source file in a stage folder"; next }
    $2 == "U" { nu++; usrc[nu] = $1; usym[nu] = $3; next }
    $2 ~ /^[A-TV-Zu]$/ { defs[$3] = defs[$3] " " $1 }
    END {
      for (i = 1; i <= nu; i++) {
        s = usym[i]; if (!(s in defs)) continue          # a system library defines it
        from = usrc[i]; f = folder(from); l = libof[f]
        n = split(substr(defs[s], 2), d, " "); ok = 0; temp = ""
        for (j = 1; j <= n && !ok; j++) {
          g = folder(d[j]); m = libof[g]
          if ((l == m && (f " " g) in okfolder) || (l != m && (l " " m) in oklib)) ok = 1
          else if ((from " " g) in okfile) temp = g
        }
        if (ok) continue
        if (temp != "") { count[from " " temp]++; continue }
        print "FAIL " from ": uses " s ", defined in " d[1] " (folder " folder(d[1]) \
          ", library " libof[folder(d[1])] "), which folder " f " (library " l \
          ") may not use"
      }
      for (k in count) {
        split(k, w, " ")
        print "TEMP " w[1] ": " count[k] " symbols of folder " w[2]
      }
    }' | c++filt | sort)
  rm -f "$rel"
  while IFS= read -r line; do
    case $line in
      FAIL*) fail "${line#FAIL }" ;;
      TEMP*)
        temporaries+=("${line#TEMP }")
        read -r _ used_file _ _ _ _ used_folder <<<"$line"
        allow_used["${used_file%:} $used_folder"]=1
        ;;
    esac
  done <<<"$report"
fi

# An allow line nothing needs any more is removed (with a build: some allow only symbols).
if [[ -n $build ]]; then
  for file in "${!allow[@]}"; do
    for f in ${allow[$file]}; do
      [[ -n ${allow_used["$file $f"]+x} ]] ||
        fail "$stages_file: 'allow $file $f' is no longer needed: remove it"
    done
  done
fi

for t in "${temporaries[@]}"; do
  echo "allowed temporarily by $stages_file: $t"
done
if ((status == 0)); then
  echo -n "layering: every #include points at the folder's own stage or one it may use"
  [[ -z $build ]] && echo " (symbols not checked: no build directory)" ||
    echo ", and so does every symbol the libraries in $build use"
fi
exit $status
