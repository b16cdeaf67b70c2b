package config

import (
	"sort"
	"testing"
)

// schemaPaths lists the dotted paths of the fixed keys of s.
func schemaPaths(prefix string, s *schema, out *[]string) {
	if s == nil {
		return
	}
	for k, c := range s.keys {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		*out = append(*out, p)
		schemaPaths(p, c, out)
	}
}

// TestEveryKeyHasAnOutcome guards the rule that no setting is accepted and
// then silently ignored: each key of appSchema is read by build (listed
// here) or judged by rules(), and audit_test.go shows what each does.
func TestEveryKeyHasAnOutcome(t *testing.T) {
	honoured := map[string]bool{}
	for _, p := range []string{
		"port", "models", "models.attributes", "models.primaryKey", "models.datastore", "models.schema",
		"models.migrate", "models.cascadeOnDestroy", "models.customToJSON", "models.description",
		"blueprints", "blueprints.actions", "blueprints.rest", "blueprints.shortcuts", "blueprints.pluralize",
		"blueprints.autoWatch", "blueprints.mirror", "blueprints.prefix", "blueprints.restPrefix",
		"datastores", "routes", "policies",
		"security", "security.csrf", "security.cors", "security.cors.allRoutes", "security.cors.allowOrigins",
		"security.cors.allowCredentials", "security.cors.allowRequestMethods", "security.cors.allowRequestHeaders",
		"security.cors.allowResponseHeaders", "security.cors.allowAnyOriginWithCredentialsUnsafe",
		"security.cors.origin", "security.cors.credentials", "security.cors.headers", "security.cors.methods",
		"security.cors.exposeHeaders",
		"sockets", "sockets.transports", "sockets.onlyAllowOrigins", "sockets.pingTimeout", "sockets.pingInterval",
		"sockets.maxHttpBufferSize", "sockets.maxBufferSize", "sockets.grant3rdPartyCookie",
		"sockets.maxConnectionsPerIP", "sockets.allowUpgrades", // WebSocket only: there is nothing to upgrade from
		"session", "session.adapter", "session.name", "session.key", "session.secret", "session.cookie",
		"session.cookie.maxAge", "session.cookie.secure", "session.cookie.httpOnly", "session.cookie.path",
		"session.cookie.domain", "session.cookie.sameSite",
		"http", "http.bodyLimit", "http.middleware", "http.middleware.order", "http.cache",
		"http.readHeaderTimeout", "http.readTimeout", "http.writeTimeout", "http.idleTimeout", "http.maxHeaderBytes",
		"log", "log.level", "log.format", "health", "health.liveness", "health.readiness", "admin", "admin.addr", "openapi", "openapi.enabled", "openapi.path", "custom", "hooks", "environment", "explicitHost",
		// Store settings, judged against session.adapter by audit.
		"session.url", "session.host", "session.port", "session.pass", "session.password", "session.user",
		"session.username", "session.db", "session.prefix", "session.datastore",
		// Socket bus settings, read by load.go, judged against sockets.adapter by audit.
		"sockets.url", "sockets.host", "sockets.port", "sockets.pass", "sockets.db", "sockets.key",
		"sockets.adapterOptions",
		// Adapter settings, judged against the datastore's adapter by audit.
		"datastores.adapter", "datastores.url", "datastores.inMemoryOnly", "datastores.dir",
		"datastores.earlyLockRelease", "datastores.ssl",
		// Handled by their own changes (other branches).
		"session.saveUninitialized", "blueprints.deepWatch", "blueprints.notificationFormat", "http.etag",
	} {
		honoured[p] = true
	}
	var paths []string
	schemaPaths("", appSchema(), &paths)
	// The datastore settings sit under the free-form datastores mapping.
	for k := range appSchema().keys["datastores"].elem.keys {
		paths = append(paths, "datastores."+k)
	}
	sort.Strings(paths)
	judged := rules()
	for _, p := range paths {
		if !honoured[p] && judged[p] == nil {
			t.Errorf("config key %s is accepted but neither read nor judged: honour it, or add a rule that warns or refuses", p)
		}
	}
}
