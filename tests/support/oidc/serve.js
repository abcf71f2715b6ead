// An OIDC provider on 127.0.0.1 for svcgen's preflight tests: prints its port, serves its
// discovery document (/.well-known/openid-configuration) until killed. The issuer is
// http://127.0.0.1:<port>, or the first argument when one is given (a different issuer).
const { OAuth2Server } = require('oauth2-mock-server');

async function main() {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const port = server.address().port;
  server.issuer.url = process.argv[2] || `http://127.0.0.1:${port}`;
  process.stdout.write(`${port}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error}\n`);
  process.exit(1);
});
