// Which configured values are secrets: env and header names that say so, the person's own list, and the
// credentials inside URLs; a model name, a path or a plain URL is ordinary text. One test per rule.

import { strict as assert } from 'node:assert';
import { envSecrets, headerSecrets, isSecretName, secretEnvNames, urlCredentials } from '../../../src/extension/core/common/secretValues';

describe('secret values', () => {
  for (const [rule, names] of [
    ['*KEY*', ['ANTHROPIC_API_KEY', 'api_key', 'KEYCHAIN_SECRET', 'openai-key', 'X-Api-Key']],
    ['*TOKEN*', ['GITHUB_TOKEN', 'token', 'TOKEN_FOR_CI', 'AccessToken']],
    ['*SECRET*', ['CLIENT_SECRET', 'secret', 'SECRET_SAUCE']],
    ['*PASSWORD*', ['DB_PASSWORD', 'password', 'PASSWORD_OF_ROOT']],
    ['*PASSWD* and *PASSPHRASE*', ['MYSQL_PASSWD', 'GPG_PASSPHRASE']],
    ['*PASS', ['DB_PASS', 'smtp_pass', 'PASS']],
    ['*CREDENTIAL*', ['AWS_CREDENTIALS', 'credential']],
    ['*AUTH*', ['AUTH', 'OAUTH_CLIENT', 'Authorization', 'Proxy-Authorization', 'AUTHORISATION', 'x-auth']],
    ['*COOKIE*', ['COOKIE', 'Set-Cookie', 'SESSION_COOKIE']],
    ['*PRIVATE*', ['PRIVATE-TOKEN', 'SSH_PRIVATE', 'private_data']],
  ] as const) {
    it(`a name matching ${rule}, in any case, is a secret's`, () => {
      for (const name of names) assert.ok(isSecretName(name), name);
    });
  }

  it('model names, paths, addresses and a person’s name are not secrets’ names', () => {
    for (const name of ['ANTHROPIC_MODEL', 'ANTHROPIC_SMALL_FAST_MODEL', 'GEMINI_MODEL', 'HOME', 'CLAUDE_CONFIG_DIR', 'ANTHROPIC_BASE_URL', 'PATH', 'PASSTHROUGH', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'XAUTHORITY', 'LOG_LEVEL']) {
      assert.ok(!isSecretName(name), name);
    }
  });

  it('a name that says where something is (file, path, dir, socket, URL, home) is a location, not the secret', () => {
    for (const name of ['SSH_AUTH_SOCK', 'API_KEY_FILE', 'PRIVATE_KEY_PATH', 'TOKEN_DIR', 'AUTH_SOCKET', 'TOKEN_URL', 'OAUTH_URI', 'SECRETS_HOME']) {
      assert.ok(!isSecretName(name), name);
    }
  });

  it('an environment’s secrets are the values of secret names and of listed names; URL credentials from the others', () => {
    const env = {
      ANTHROPIC_API_KEY: 'sk-ant-0123456789',
      ANTHROPIC_MODEL: 'claude-sonnet-5-5',
      CLAUDE_CONFIG_DIR: '/home/me/.claude',
      ANTHROPIC_BASE_URL: 'https://proxy.test/v1',
      MY_SERVICE_PAT: 'pat-0123456789',
      DATABASE_URL: 'postgres://app:db-pass-0123@db.test/app',
      UNSET: undefined,
    };
    assert.deepEqual(envSecrets(env), ['sk-ant-0123456789', 'app', 'app', 'db-pass-0123', 'db-pass-0123']);
    assert.deepEqual(envSecrets(env, ['MY_SERVICE_PAT']), ['sk-ant-0123456789', 'pat-0123456789', 'app', 'app', 'db-pass-0123', 'db-pass-0123']);
    assert.deepEqual(secretEnvNames(env, ['MY_SERVICE_PAT', 'INHERITED_PAT']), ['ANTHROPIC_API_KEY', 'MY_SERVICE_PAT', 'INHERITED_PAT']);
  });

  it('a URL gives its user name and password, as written and decoded, and its secret-named query values; a plain URL nothing', () => {
    assert.deepEqual(urlCredentials('https://proxy.test:8443/v1/models?x=1'), []);
    assert.deepEqual(urlCredentials('https://us%40r:p%2Fss-0123@proxy.test/'), ['us%40r', 'us@r', 'p%2Fss-0123', 'p/ss-0123']);
    assert.deepEqual(urlCredentials('https://x-token-abcdef@github.test/o/r.git'), ['x-token-abcdef', 'x-token-abcdef']);
    assert.deepEqual(urlCredentials('https://api.test/v1?api_key=k-0123456789&model=m&access_token=t-0123456789'), ['k-0123456789', 't-0123456789']);
    for (const notUrl of ['user:pass@host', 'claude-sonnet-5-5', '/home/me/.claude', 'https://', 'http://a b']) assert.deepEqual(urlCredentials(notUrl), [], notUrl);
  });

  it('a secret-named header gives its whole value, the credential after its scheme, a Basic password and each cookie', () => {
    const basic = Buffer.from('me:basic-pass-0123').toString('base64');
    assert.deepEqual(
      headerSecrets([
        { name: 'Authorization', value: 'Bearer tok-0123456789' },
        { name: 'Proxy-Authorization', value: `Basic ${basic}` },
        { name: 'Cookie', value: 'sid=cookie-0123456789; theme=dark' },
        { name: 'X-Api-Key', value: 'xk-0123456789' },
        { name: 'Accept', value: 'application/json' },
        { name: 'X-Callback', value: 'https://hook:hook-pass-0123@cb.test/' },
      ]),
      ['Bearer tok-0123456789', 'tok-0123456789', `Basic ${basic}`, basic, 'basic-pass-0123', 'sid=cookie-0123456789; theme=dark', 'cookie-0123456789', 'dark', 'xk-0123456789', 'hook', 'hook', 'hook-pass-0123', 'hook-pass-0123'],
    );
  });
});
