// Imports every domain module (each registers its types on the builder) and builds the schema.
import { builder } from './builder.ts';
import './user/user.type.ts';
import './contact/contact.queries.ts';
import './contact/contact.mutations.ts';
import './contact/note.ts';
import './contact/timeline.ts';
// Deals and pipelines
// Tasks
// Activities and users

export const schema = builder.toSchema();
