// The environment of every git the sample runs: the person as author and committer at a given time, no
// system configuration, and no automatic gc or maintenance (the receive-pack a push starts included). The
// sample's git runs beside the demo's server and collectors, and an automatic gc after a push held all of
// them for up to 5 s.
export function sampleGitEnv(email: string, when: string): Record<string, string> {
  return {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: '3',
    GIT_CONFIG_KEY_0: 'gc.auto',
    GIT_CONFIG_VALUE_0: '0',
    GIT_CONFIG_KEY_1: 'maintenance.auto',
    GIT_CONFIG_VALUE_1: 'false',
    GIT_CONFIG_KEY_2: 'receive.autogc',
    GIT_CONFIG_VALUE_2: 'false',
    GIT_AUTHOR_NAME: email,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: email,
    GIT_COMMITTER_EMAIL: email,
    GIT_AUTHOR_DATE: when,
    GIT_COMMITTER_DATE: when,
  };
}
