// When jobs run and which files are due: schedules computed from the configuration, read by the service, the console
// and `wisbridge status`.
export { CronSchedule, type Schedule } from './cron.js';
export { CalendarSchedule, calendarsOf, scheduleOf } from './business-schedule.js';
export { expectedFileViews, type ExpectedFileView, type MissedFileAlert } from './expected-files.js';
