package config

// Check is Validate plus the checks that need the file system and the
// environment: the API key variable is set and non-empty, the API key file is
// readable and non-empty, the CA file is readable and holds PEM
// certificates, and the client certificate and key load as a pair. It
// returns every problem as Errors, or nil. No message contains a key.
func (c *Config) Check() error {
	col := &collector{src: c.src}
	c.validate(col)
	c.check(col)
	return col.errs.sorted().orNil()
}

// check records every target's file-system and environment problems, and
// keeps the files each target references, decoded, for Target.Assets.
func (c *Config) check(col *collector) {
	for i := range c.Targets {
		c.Targets[i].check(col, targetPath(i))
	}
}

// check records the target's file-system and environment problems.
func (t *Target) check(col *collector, path string) {
	t.assets = t.loadAssets(col, path)
	switch {
	case t.Auth.APIKeyEnv != "" && envNamePattern.MatchString(t.Auth.APIKeyEnv):
		if _, err := keyFromEnv(t.Auth.APIKeyEnv); err != nil {
			col.add(path+".auth.api_key_env", "%v", err)
		}
	case t.Auth.APIKeyFile != "":
		if _, err := keyFromFile(t.Auth.APIKeyFile); err != nil {
			col.add(path+".auth.api_key_file", "%v", err)
		}
	}
	if t.TLS.CAFile != "" {
		if _, err := loadCAFile(t.TLS.CAFile); err != nil {
			col.add(path+".tls.ca_file", "%v", err)
		}
	}
	if t.TLS.CertFile != "" && t.TLS.KeyFile != "" {
		if _, err := loadKeyPair(t.TLS.CertFile, t.TLS.KeyFile); err != nil {
			col.add(path+".tls.cert_file", "%v", err)
		}
	}
}
