package cors

import (
	"fmt"
	"net/url"
	"strings"
)

// CheckOrigin validates an origin written in configuration, as Sails'
// check-origin-url does for security.cors.allowOrigins and
// sockets.onlyAllowOrigins: "file://..." is accepted as it is; anything
// else must be http:// or https:// plus a host, with no path, query,
// fragment or trailing slash, and no explicit default port (:80 for http,
// :443 for https).
func CheckOrigin(origin string) error {
	if strings.HasPrefix(origin, "file://") {
		return nil
	}
	if !strings.HasPrefix(origin, "http://") && !strings.HasPrefix(origin, "https://") {
		return fmt.Errorf("origin %q must start with http:// or https://", origin)
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return fmt.Errorf("origin %q is not a URL with a host", origin)
	}
	if u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(origin, "?") || strings.HasSuffix(origin, "#") {
		return fmt.Errorf("origin %q must not have a path, query or fragment (not even a trailing slash)", origin)
	}
	if u.User != nil {
		return fmt.Errorf("origin %q must not carry credentials", origin)
	}
	if (u.Scheme == "http" && u.Port() == "80") || (u.Scheme == "https" && u.Port() == "443") {
		return fmt.Errorf("origin %q must not name the default port of its scheme", origin)
	}
	return nil
}
