package model

import (
	"fmt"
	"math"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// argKind is the kind of configuration a validation rule takes.
type argKind uint8

const (
	argFlag   argKind = iota // true (false switches the rule off)
	argNumber                // any number
	argLength                // a non-negative integer
	argList                  // a list of values
	argRegex                 // a pattern, "/pattern/flags" allowed
	argDate                  // ms since the epoch or a date string
)

// ruleSpec describes one anchor rule.
type ruleSpec struct {
	arg argKind
	// types lists the plain attribute types the rule applies to.
	types []Type
	// skipEmpty marks the rules that accept the empty string (∅ in the spec).
	skipEmpty bool
	check     func(v, arg any) bool
	// msg completes "Value (<v>) ...".
	msg func(arg any) string
}

var (
	anyTypes    = []Type{JSON, Ref}
	stringTypes = []Type{JSON, Ref, String}
	numberTypes = []Type{JSON, Ref, Number}
	scalarTypes = []Type{JSON, Ref, String, Number}
)

func fixed(s string) func(any) string { return func(any) string { return s } }

// ruleSpecs are the validation rules of Sails 1.x (anchor).
var ruleSpecs = map[string]ruleSpec{
	"isBoolean": {argFlag, anyTypes, false, func(v, _ any) bool { _, ok := v.(bool); return ok }, fixed("was not a boolean.")},
	"isNotEmptyString": {argFlag, stringTypes, false, func(v, _ any) bool { return v != "" },
		fixed("was an empty string.")},
	"isInteger": {argFlag, numberTypes, false, func(v, _ any) bool {
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	}, fixed("was not an integer.")},
	"isNumber": {argFlag, anyTypes, false, func(v, _ any) bool { _, ok := v.(float64); return ok }, fixed("was not a number.")},
	"isString": {argFlag, anyTypes, false, func(v, _ any) bool { _, ok := v.(string); return ok }, fixed("was not a string.")},
	"min": {argNumber, numberTypes, false, func(v, arg any) bool { return cmpNumber(v, arg) >= 0 },
		func(arg any) string { return "was less than the configured minimum (" + inspect(arg) + ")." }},
	"max": {argNumber, numberTypes, false, func(v, arg any) bool { return cmpNumber(v, arg) <= 0 && cmpNumber(v, arg) != -2 },
		func(arg any) string { return "was greater than the configured maximum (" + inspect(arg) + ")." }},
	"isAfter": {argDate, scalarTypes, true, func(v, arg any) bool { return cmpDate(v, arg) > 0 },
		func(arg any) string { return "was before the configured time (" + inspect(arg) + ")." }},
	"isBefore": {argDate, scalarTypes, true, func(v, arg any) bool { return cmpDate(v, arg) == -1 },
		func(arg any) string { return "was after the configured time (" + inspect(arg) + ")." }},
	"isCreditCard": {argFlag, stringTypes, true, stringCheck(isCreditCard), fixed("was not a valid credit card.")},
	"isEmail":      {argFlag, stringTypes, true, stringCheck(isEmail), fixed("was not a valid email address.")},
	"isHexColor":   {argFlag, stringTypes, true, stringCheck(hexColorPattern.MatchString), fixed("was not a valid hex color.")},
	"isIP":         {argFlag, stringTypes, true, stringCheck(isIP), fixed("was not a valid IP address.")},
	"isUUID":       {argFlag, stringTypes, true, stringCheck(uuidPattern.MatchString), fixed("was not a valid UUID.")},
	"isURL":        {argFlag, stringTypes, true, stringCheck(isURL), fixed("was not a valid URL.")},
	"isIn": {argList, scalarTypes, true, func(v, arg any) bool { return inList(v, arg) },
		func(arg any) string { return "was not in the configured whitelist (" + joinList(arg) + ")." }},
	"isNotIn": {argList, scalarTypes, true, func(v, arg any) bool { return !inList(v, arg) },
		func(arg any) string { return "was in the configured blacklist (" + joinList(arg) + ")." }},
	"minLength": {argLength, stringTypes, true, func(v, arg any) bool { return cmpLength(v, arg) >= 0 },
		func(arg any) string { return "was shorter than the configured minimum length (" + inspect(arg) + ")." }},
	"maxLength": {argLength, stringTypes, true, func(v, arg any) bool { c := cmpLength(v, arg); return c <= 0 && c != -2 },
		func(arg any) string { return "was longer than the configured maximum length (" + inspect(arg) + ")." }},
	"regex": {argRegex, stringTypes, true, matchRegex,
		func(arg any) string {
			return "did not match the configured regular expression (" + regexSource(arg) + ")."
		}},
}

// legacyRules are Sails 0.x rule names renamed in 1.x.
var legacyRules = map[string]string{
	"after": "isAfter", "before": "isBefore", "creditcard": "isCreditCard", "email": "isEmail",
	"in": "isIn", "enum": "isIn", "ip": "isIP", "notIn": "isNotIn", "url": "isURL", "uuid": "isUUID",
	"integer": "isInteger",
}

// removedRules are Sails 0.x rules that fail the lift in 1.x.
var removedRules = []string{
	"alpha", "alphadashed", "alphanumeric", "alphanumericdashed", "numeric", "lowercase", "uppercase",
	"contains", "notContains", "notNull", "truthy", "falsey", "empty", "notEmpty", "hexadecimal",
	"hexColor", "decimal", "float", "int", "finite", "string", "number", "boolean", "array", "date",
	"datetime", "json", "object", "null", "undefined", "binary", "ipv4", "ipv6", "uuidv3", "uuidv4",
	"is", "not", "notRegex", "equals", "len", "urlish", "greaterThan", "lessThan",
}

// rule reads attribute key k as a validation rule. ok is false when the
// rule is switched off (a flag set to false).
func (p *parser) rule(attr, k string, val any) (r Rule, ok bool, err error) {
	name := k
	if n, renamed := legacyRules[k]; renamed {
		name = n
	}
	spec, known := ruleSpecs[name]
	if !known {
		if slices.Contains(removedRules, k) {
			return r, false, p.errf(attr, "validation rule %s was removed in Sails 1.x", k)
		}
		return r, false, p.errf(attr, "unknown key %q", k)
	}
	val = normalizeNumbers(val)
	switch spec.arg {
	case argFlag:
		b, isBool := val.(bool)
		if !isBool {
			return r, false, p.errf(attr, "%s must be true or false, not %s", k, describeDef(val))
		}
		if !b {
			return r, false, nil
		}
	case argNumber:
		f, isNum := val.(float64)
		if !isNum || math.IsNaN(f) {
			return r, false, p.errf(attr, "%s must be a number, not %s", k, describeDef(val))
		}
	case argLength:
		f, isNum := val.(float64)
		if !isNum || f < 0 || f != math.Trunc(f) {
			return r, false, p.errf(attr, "%s must be a non-negative integer, not %s", k, describeDef(val))
		}
	case argList:
		if _, isList := val.([]any); !isList {
			return r, false, p.errf(attr, "%s must be a list, not %s", k, describeDef(val))
		}
	case argRegex:
		s, isString := val.(string)
		if !isString {
			return r, false, p.errf(attr, "%s must be a regular expression string, not %s", k, describeDef(val))
		}
		if _, err := compileRegex(s); err != nil {
			return r, false, p.errf(attr, "%s %q does not compile: %v", k, s, err)
		}
	case argDate:
		if _, isDate := toTime(val); !isDate {
			return r, false, p.errf(attr, "%s must be a timestamp in ms or a date string, not %s", k, describeDef(val))
		}
	}
	return Rule{Name: name, Arg: val}, true, nil
}

// checkRules refuses rules that do not apply to the attribute's type.
func (p *parser) checkRules(a *Attribute) error {
	for _, r := range a.Rules {
		if !slices.Contains(ruleSpecs[r.Name].types, a.Type) {
			return p.errf(a.Name, "validation rule %s cannot be used with type %s", r.Name, a.Type)
		}
	}
	return nil
}

// violations returns the messages of every rule v breaks, in rule order,
// then the custom rules. v is the coerced, non-null value.
func (a *Attribute) violations(v any) []string {
	var msgs []string
	for _, r := range a.Rules {
		spec, ok := ruleSpecs[r.Name]
		if !ok || (spec.skipEmpty && v == "") {
			continue
		}
		if !spec.check(v, r.Arg) {
			msgs = append(msgs, "Value ("+inspect(v)+") "+spec.msg(r.Arg))
		}
	}
	for _, f := range a.CustomRules {
		if err := f(v); err != nil {
			msg := err.Error()
			if msg == "" {
				msg = "Value (" + inspect(v) + ") failed custom validation."
			}
			msgs = append(msgs, msg)
		}
	}
	return msgs
}

func stringCheck(f func(string) bool) func(v, arg any) bool {
	return func(v, _ any) bool {
		s, ok := v.(string)
		return ok && f(s)
	}
}

// cmpNumber compares v with arg: -1, 0, 1, or -2 when either is no number.
func cmpNumber(v, arg any) int {
	a, ok1 := v.(float64)
	b, ok2 := ToFloat(arg)
	if !ok1 || !ok2 {
		return -2
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpLength compares the length of v (runes of a string, elements of a
// list) with arg: -1, 0, 1, or -2 when v has no length.
func cmpLength(v, arg any) int {
	n := 0
	switch x := v.(type) {
	case string:
		n = utf8.RuneCountInString(x)
	case []any:
		n = len(x)
	default:
		return -2
	}
	b, ok := ToFloat(arg)
	if !ok {
		return -2
	}
	switch {
	case float64(n) < b:
		return -1
	case float64(n) > b:
		return 1
	}
	return 0
}

// cmpDate compares the instants of v and arg: -1, 0, 1, or -2 when either
// is no date.
func cmpDate(v, arg any) int {
	a, ok1 := toTime(v)
	b, ok2 := toTime(arg)
	if !ok1 || !ok2 {
		return -2
	}
	return a.Compare(b)
}

// dateLayouts are the date strings accepted by isAfter/isBefore; the ones
// without a zone are taken as UTC.
var dateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02",
	"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006/01/02",
	time.RFC1123, time.RFC1123Z, "Jan 2, 2006", "January 2, 2006", "Mon Jan 02 2006 15:04:05 GMT-0700",
}

// toTime reads a millisecond timestamp or a date string.
func toTime(v any) (time.Time, bool) {
	if t, ok := v.(time.Time); ok {
		return t, true
	}
	if f, ok := ToFloat(v); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return time.Time{}, false
		}
		return time.UnixMilli(int64(f)), true
	}
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func inList(v, arg any) bool {
	list, _ := arg.([]any)
	for _, e := range list {
		if f, ok := ToFloat(e); ok {
			e = f
		}
		if strictEqual(v, e) {
			return true
		}
	}
	return false
}

// strictEqual is JavaScript's === for the scalar values a record holds;
// lists and dictionaries are never equal (they would be different objects).
func strictEqual(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return false
}

func joinList(arg any) string {
	list, _ := arg.([]any)
	parts := make([]string, len(list))
	for i, e := range list {
		if s, ok := e.(string); ok {
			parts[i] = s
		} else {
			parts[i] = inspect(e)
		}
	}
	return strings.Join(parts, ", ")
}

// compileRegex compiles a Go pattern, or a JavaScript-style "/pattern/flags"
// string with the flags i, m and s (g, u and y have no meaning here).
func compileRegex(s string) (*regexp.Regexp, error) {
	if len(s) >= 2 && s[0] == '/' {
		if end := strings.LastIndexByte(s, '/'); end > 0 {
			flags := s[end+1:]
			if strings.Trim(flags, "gimsuy") == "" {
				var goFlags string
				for _, f := range "ims" {
					if strings.ContainsRune(flags, f) {
						goFlags += string(f)
					}
				}
				pattern := s[1:end]
				if goFlags != "" {
					pattern = "(?" + goFlags + ")" + pattern
				}
				return regexp.Compile(pattern)
			}
		}
	}
	return regexp.Compile(s)
}

func matchRegex(v, arg any) bool {
	s, ok := v.(string)
	if !ok {
		f, isNum := v.(float64)
		if !isNum {
			return false
		}
		s = FormatNumber(f)
	}
	var re *regexp.Regexp
	switch x := arg.(type) {
	case *regexp.Regexp:
		re = x
	case string:
		var err error
		if re, err = compileRegex(x); err != nil {
			return false
		}
	default:
		return false
	}
	return re.MatchString(s)
}

func regexSource(arg any) string {
	if re, ok := arg.(*regexp.Regexp); ok {
		return "/" + re.String() + "/"
	}
	return fmt.Sprint(arg)
}

// The validation rules' patterns compile on first use: the email and URL
// classes take about 11 ms and 200 KB of heap to compile (case folding
// over large Unicode ranges), which every start paid whether a model used
// those rules or not.
var (
	hexColorPattern = regexp.MustCompile(`^#?([0-9A-Fa-f]{3}|[0-9A-Fa-f]{4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$`)
	uuidPattern     = regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
	creditCardRE    = lazyRegexp(`^(?:4[0-9]{12}(?:[0-9]{3,6})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12,15}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14}|81[0-9]{14,17})$`)
	// The classes below are validator.js's, with \uXXXX ranges in Go syntax.
	emailUserPart   = lazyRegexp("(?i)^[a-z\\d!#$%&'*+\\-/=?^_`{|}~\\x{00A1}-\\x{D7FF}\\x{F900}-\\x{FDCF}\\x{FDF0}-\\x{FFEF}]+$")
	quotedEmailUser = lazyRegexp(`(?i)^([\s\x01-\x08\x0b\x0c\x0e-\x1f\x7f\x21\x23-\x5b\x5d-\x7e\x{00A1}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}]|(\\[\x01-\x09\x0b\x0c\x0d-\x7f\x{00A1}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}]))*$`)
	tldPattern      = lazyRegexp(`(?i)^([a-z\x{00A1}-\x{00A8}\x{00AA}-\x{D7FF}\x{F900}-\x{FDCF}\x{FDF0}-\x{FFEF}]{2,}|xn[a-z0-9-]{2,})$`)
	labelPattern    = lazyRegexp(`(?i)^[a-z_\x{00a1}-\x{ffff}0-9-]+$`)
	fullWidth       = lazyRegexp(`[\x{ff01}-\x{ff5e}]`)
	digitsOnly      = lazyRegexp(`^[0-9]+$`)
	wrappedIPv6     = lazyRegexp(`^\[([^\]]+)\](?::([0-9]+))?$`)
)

// lazyRegexp returns a function giving the compiled expr, compiled once on
// its first call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// isEmail is validator.js isEmail with its default options.
func isEmail(s string) bool {
	if len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return false
	}
	user, domain := s[:at], strings.ToLower(s[at+1:])
	if len(user) > 64 || len(domain) > 254 || !isFQDN(domain, true) {
		return false
	}
	if strings.HasPrefix(user, `"`) {
		if len(user) < 2 || !strings.HasSuffix(user, `"`) {
			return false
		}
		return quotedEmailUser().MatchString(user[1 : len(user)-1])
	}
	for part := range strings.SplitSeq(user, ".") {
		if !emailUserPart().MatchString(part) {
			return false
		}
	}
	return true
}

// isFQDN is validator.js isFQDN (no underscores, no trailing dot, no
// numeric top-level domain).
func isFQDN(s string, requireTLD bool) bool {
	parts := strings.Split(s, ".")
	tld := parts[len(parts)-1]
	if requireTLD {
		if len(parts) < 2 || !tldPattern().MatchString(tld) {
			return false
		}
	}
	if digitsOnly().MatchString(tld) {
		return false
	}
	for _, part := range parts {
		if len(part) > 63 || !labelPattern().MatchString(part) || fullWidth().MatchString(part) ||
			strings.HasPrefix(part, "-") || strings.HasSuffix(part, "-") || strings.Contains(part, "_") {
			return false
		}
	}
	return true
}

// isIP accepts IPv4 (no leading zeros) and IPv6 addresses, zones included.
func isIP(s string) bool {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return false
	}
	return a.Is4() || strings.Contains(s, ":")
}

// isURL is validator.js isURL with its default options (http, https, ftp;
// protocol optional; host required), plus localhost as Sails accepts it.
func isURL(s string) bool {
	if s == "" || len(s) >= 2083 || strings.ContainsAny(s, " \t\n\r\v\f<>") || strings.HasPrefix(s, "mailto:") {
		return false
	}
	s, _, _ = strings.Cut(s, "#")
	s, _, _ = strings.Cut(s, "?")
	if proto, rest, ok := strings.Cut(s, "://"); ok {
		switch strings.ToLower(proto) {
		case "http", "https", "ftp":
		default:
			return false
		}
		s = rest
	} else if strings.HasPrefix(s, "//") {
		return false
	}
	if s == "" {
		return false
	}
	hostport, _, _ := strings.Cut(s, "/")
	if i := strings.LastIndexByte(hostport, '@'); i >= 0 {
		auth := hostport[:i]
		if auth == "" || strings.Count(auth, ":") > 1 || auth == ":" {
			return false
		}
		hostport = hostport[i+1:]
	}
	var host, ipv6, port string
	if m := wrappedIPv6().FindStringSubmatch(hostport); m != nil {
		ipv6, port = m[1], m[2]
	} else {
		host, port, _ = strings.Cut(hostport, ":")
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if !digitsOnly().MatchString(port) || err != nil || n <= 0 || n > 65535 {
			return false
		}
	}
	if ipv6 != "" {
		a, err := netip.ParseAddr(ipv6)
		return err == nil && a.Is6()
	}
	return strings.EqualFold(host, "localhost") || (host != "" && (isIP(host) || isFQDN(host, true)))
}

// isCreditCard is validator.js isCreditCard: a known issuer pattern and a
// valid Luhn checksum, dashes and spaces ignored.
func isCreditCard(s string) bool {
	s = strings.NewReplacer("-", "", " ", "").Replace(s)
	if !creditCardRE().MatchString(s) {
		return false
	}
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		d := int(s[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// inspect renders v as Node's util.inspect does in Waterline's messages.
func inspect(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "'" + strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), "'", `\'`) + "'"
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = inspect(e)
		}
		if len(parts) == 0 {
			return "[]"
		}
		return "[ " + strings.Join(parts, ", ") + " ]"
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		parts := make([]string, 0, len(x))
		for _, k := range sortedNames(x) {
			parts = append(parts, k+": "+inspect(x[k]))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	if f, ok := ToFloat(v); ok {
		return FormatNumber(f)
	}
	return fmt.Sprint(v)
}
