/** The most months `dealOutcomesByMonth` answers for; also the list's bound in the cost analysis. */
export const MAX_MONTHS = 36;
