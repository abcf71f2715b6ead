// Admin UI container .env and compose service (peer template: gojsonnet), multi-file output as
// with `jsonnet -m DIR -S`: a map of file name to text.
function(vars)
  local quote(s) = "'" + std.strReplace(s, "'", "'\\''") + "'";
  {
    '.env': '# Admin UI container environment (peer template: gojsonnet).\n'
            + std.join('', [v.name + '=' + quote(v.value) + '\n' for v in vars.env]),
    'docker-compose.yml': '# Admin UI container: a docker compose service (peer template: gojsonnet).\n'
                          + std.manifestYamlDoc({
                            services: {
                              [vars.service]: {
                                image: vars.image,
                                environment: { [v.name]: v.value for v in vars.env },
                              },
                            },
                          }, quote_keys=true) + '\n',
  }
