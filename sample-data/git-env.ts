// Git settings for the sample's repositories, given through the environment so that every git the sample
// runs has them, the receive-pack a push starts included: no automatic gc or maintenance. The sample's
// git runs synchronously inside the demo's process, beside its server and collectors, and an automatic
// gc after a push held all of them for up to 5 s.
export const SAMPLE_GIT_CONFIG = {
  GIT_CONFIG_COUNT: '3',
  GIT_CONFIG_KEY_0: 'gc.auto',
  GIT_CONFIG_VALUE_0: '0',
  GIT_CONFIG_KEY_1: 'maintenance.auto',
  GIT_CONFIG_VALUE_1: 'false',
  GIT_CONFIG_KEY_2: 'receive.autogc',
  GIT_CONFIG_VALUE_2: 'false',
} as const;
