# Shared by the scripts' CLI tests: check NAME PATTERN FILE passes when FILE holds PATTERN (an ERE),
# absent NAME PATTERN FILE when it does not; a failure prints FILE and sets fail=1.
fail=0
check() {  # name, pattern, file
  if grep -qE -- "$2" "$3"; then echo "ok   $1"; else echo "FAIL $1: no /$2/ in:"; cat "$3"; fail=1; fi
}
absent() {
  if grep -qE -- "$2" "$3"; then echo "FAIL $1: /$2/ in:"; cat "$3"; fail=1; else echo "ok   $1"; fi
}
