/** What a resumed attempt of a CLI stage says first: the CLI session already holds the task. */
export const CLI_RESUME_MESSAGE =
  'weft resumed this session after the previous attempt of the stage was interrupted. Carry on with the task from where it stopped, then give your final answer.';
