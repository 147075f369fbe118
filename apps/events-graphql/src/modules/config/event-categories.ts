/** The event categories, in the reference's order; ids are the `EventCategory` enum values. */
export const EVENT_CATEGORIES = [
  { id: 'ARTS', label: 'Arts' },
  { id: 'BOOK_CLUBS', label: 'Book clubs' },
  { id: 'BUSINESS', label: 'Business' },
  { id: 'CAUSES', label: 'Causes' },
  { id: 'COMEDY', label: 'Comedy' },
  { id: 'CRAFTS', label: 'Crafts' },
  { id: 'FOOD_DRINK', label: 'Food & Drink' },
  { id: 'HEALTH', label: 'Health' },
  { id: 'MUSIC', label: 'Music' },
  { id: 'AUTO_BOAT_AIR', label: 'Auto, boat and air' },
  { id: 'COMMUNITY', label: 'Community' },
  { id: 'FAMILY_EDUCATION', label: 'Family & Education' },
  { id: 'FASHION_BEAUTY', label: 'Fashion & Beauty' },
  { id: 'FILM_MEDIA', label: 'Film & Media' },
  { id: 'GAMES', label: 'Games' },
  { id: 'LANGUAGE_CULTURE', label: 'Language & Culture' },
  { id: 'LEARNING', label: 'Learning' },
  { id: 'LGBTQ', label: 'LGBTQ' },
  { id: 'MOVEMENTS_POLITICS', label: 'Movements and politics' },
  { id: 'NETWORKING', label: 'Networking' },
  { id: 'PARTY', label: 'Party' },
  { id: 'PERFORMING_VISUAL_ARTS', label: 'Performing & Visual Arts' },
  { id: 'PETS', label: 'Pets' },
  { id: 'PHOTOGRAPHY', label: 'Photography' },
  { id: 'OUTDOORS_ADVENTURE', label: 'Outdoors & Adventure' },
  { id: 'SPIRITUALITY_RELIGION_BELIEFS', label: 'Spirituality, Religion & Beliefs' },
  { id: 'SCIENCE_TECH', label: 'Science & Tech' },
  { id: 'SPORTS', label: 'Sports' },
  { id: 'THEATRE', label: 'Theatre' },
  { id: 'MEETING', label: 'Meeting' },
] as const;

export type EventCategoryId = (typeof EVENT_CATEGORIES)[number]['id'];

/** What `createEvent` uses when no category is given. */
export const DEFAULT_EVENT_CATEGORY: EventCategoryId = 'MEETING';
